// The variant registry: names, descriptions and what each needs. Torch-free,
// so the viewer lists the variants without loading the lab.
#include "lab/api/variants.h"

namespace syncscope::lab {

const std::vector<VariantInfo> &allVariants()
{
    static const std::vector<VariantInfo> v = {
        {"naive",
         "The article's sampler: nonzero + randperm + index. Data-dependent shapes, so it "
         "syncs on a GPU; batched input is looped row by row.",
         false, false, false, false,
         "nonzero and randperm give data-dependent shapes: the host must read the counts, "
         "which a CUDA graph cannot capture"},
        {"static",
         "Sync-free tensor ops: count_nonzero, random keys, topk, gather. Fixed shapes, natively "
         "batched, full feature rows, uniform output order.",
         true, true, false, true, ""},
        {"static-graph",
         "static captured once per input buffers and shape into a CUDA graph and replayed per step "
         "(fresh Philox numbers each replay); feed new data by writing it into the same "
         "features/labels tensors in place (copy_) and calling again.",
         true, true, true, true, ""},
        {"fused",
         "Our hand-written kernel: one read pass over the labels, exact uniform subsets, "
         "parallel over rows and chunks; on CUDA, no host sync and capturable into a graph.",
         true, true, false, true, ""},
        {"article-static",
         "The article's published sync-free sampler, op for op, kept to show its defects: it "
         "gathers idxs.unsqueeze(-1), so only feature column 0 comes back; its last topk orders "
         "the winners by their selection keys, so a minority class sits at the end of the "
         "output; its K//2 count rule ignores the target fraction and, when fewer than K items "
         "are eligible, fills the rest with items that are not. Not held to the output contract.",
         true, true, false, true, "", true},
    };
    return v;
}

const VariantInfo *findVariant(const std::string &name)
{
    for (const auto &v : allVariants())
        if (v.name == name)
            return &v;
    return nullptr;
}

} // namespace syncscope::lab
