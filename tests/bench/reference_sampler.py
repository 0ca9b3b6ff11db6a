"""Python reference of the article's two samplers, written for syncscope.

Both do the same work as our C++ variants so the comparison is fair: the count
rule of the issue (no K//2 loss), full feature rows, and for `static_sample` a
uniform output order from fresh keys (the article reused the selection keys).
Both return the indices, feature rows and labels (static also `valid`), as the
C++ variants do; the naive outputs are not padded to K here (the C++ one pads
when a row has fewer than K eligible items, which these inputs never trigger).
"""
import torch


def counts(P, Q, k, f=0.5):
    target = int(k * f + 1e-9 * max(1.0, k * f))
    num_pos = min(P, target)
    num_neg = min(Q, k - num_pos)
    if num_neg < k - num_pos:
        num_pos = min(P, k - num_neg)
    return num_pos, num_neg


def naive_sample(features, labels, k, gen=None):
    """nonzero + randperm + index: data-dependent shapes (syncs on a GPU)."""
    positive = torch.nonzero(labels == 1, as_tuple=True)[0]
    negative = torch.nonzero(labels == 0, as_tuple=True)[0]
    num_pos, num_neg = counts(positive.numel(), negative.numel(), k)
    perm1 = torch.randperm(positive.numel(), generator=gen, device=labels.device)[:num_pos]
    perm2 = torch.randperm(negative.numel(), generator=gen, device=labels.device)[:num_neg]
    idx = torch.cat([positive[perm1], negative[perm2]])
    idx = idx[torch.randperm(idx.numel(), generator=gen, device=labels.device)]
    return idx, features[idx], labels[idx]


def naive_batched(features, labels, k, gen=None):
    """The article's batched_sample_data: a Python loop over the rows."""
    outs = [naive_sample(features[i], labels[i], k, gen) for i in range(features.size(0))]
    return [o[0] for o in outs], [o[1] for o in outs], [o[2] for o in outs]


def static_sample(features, labels, k: int):
    """count_nonzero + random keys + topk + gather: fixed shapes, batched."""
    pos_mask = labels == 1
    neg_mask = labels == 0
    P = torch.count_nonzero(pos_mask, dim=-1)
    Q = torch.count_nonzero(neg_mask, dim=-1)
    target = int(k * 0.5)
    num_pos = torch.clamp(P, max=target)
    num_neg = torch.minimum(Q, k - num_pos)
    num_pos = torch.where(num_neg < k - num_pos, torch.minimum(P, k - num_neg), num_pos)
    valid = num_pos + num_neg
    n = labels.size(-1)
    kk = min(k, n)
    keys = torch.rand(labels.shape, device=labels.device)
    _, pos_idx = torch.topk(keys.masked_fill(~pos_mask, -1.0), kk, dim=-1)
    _, neg_idx = torch.topk(keys.masked_fill(~neg_mask, -1.0), kk, dim=-1)
    slot = torch.arange(kk, device=labels.device)
    cand_idx = torch.cat([pos_idx, neg_idx], dim=-1)
    cand_ok = torch.cat([slot < num_pos.unsqueeze(-1), slot < num_neg.unsqueeze(-1)], dim=-1)
    w = min(k, 2 * kk)
    order_keys = torch.rand(cand_idx.shape, device=labels.device).masked_fill(~cand_ok, -1.0)
    order = torch.topk(order_keys, w, dim=-1)[1]
    chosen = torch.gather(cand_idx, -1, order)
    ok = torch.arange(w, device=labels.device) < valid.unsqueeze(-1)
    out_f = torch.gather(features, -2, chosen.unsqueeze(-1).expand(*chosen.shape, features.size(-1)))
    out_f = out_f.masked_fill(~ok.unsqueeze(-1), 0)
    out_l = torch.gather(labels, -1, chosen).masked_fill(~ok, -1)
    out_i = chosen.masked_fill(~ok, -1)
    return out_i, out_f, out_l, valid


def article_static_sample(input, labels, SUB_SAMPLE: int):
    """The article's opt_sample_data exactly as published (SUB_SAMPLE passed in):
    only feature column 0 comes back, the order follows the selection keys, and
    the counts use SUB_SAMPLE // 2 whatever the target fraction."""
    pos_mask = labels == 1
    neg_mask = labels == 0
    num_pos_idxs = torch.count_nonzero(pos_mask, dim=-1)
    num_neg_idxs = torch.count_nonzero(neg_mask, dim=-1)
    half_samples = labels.new_full((), SUB_SAMPLE // 2)
    num_pos = torch.minimum(num_pos_idxs, half_samples)
    num_neg = torch.minimum(num_neg_idxs, half_samples)
    num_pos = torch.where(
        num_neg < SUB_SAMPLE // 2,
        SUB_SAMPLE - num_neg,
        num_pos
    )
    num_neg = SUB_SAMPLE - num_pos

    # create random ordering on pos and neg entries
    rand = torch.rand_like(labels, dtype=torch.float32)
    pos_rand = torch.where(pos_mask, rand, -1)
    neg_rand = torch.where(neg_mask, rand, -1)

    # select top pos entries and invalidate others
    # since CPU doesn't know num_pos, we assume maximum to avoid sync
    top_pos_rand, top_pos_idx = torch.topk(pos_rand, k=SUB_SAMPLE)
    arange = torch.arange(SUB_SAMPLE, device=labels.device)
    if num_pos.numel() > 1:
        # unsqueeze to support batched input
        arange = arange.unsqueeze(0)
        num_pos = num_pos.unsqueeze(-1)
        num_neg = num_neg.unsqueeze(-1)
    top_pos_rand = torch.where(arange >= num_pos, -1, top_pos_rand)

    # repeat for neg entries
    top_neg_rand, top_neg_idx = torch.topk(neg_rand, k=SUB_SAMPLE)
    top_neg_rand = torch.where(arange >= num_neg, -1, top_neg_rand)

    # combine and mix together positive and negative idxs
    cat_rand = torch.cat([top_pos_rand, top_neg_rand], dim=-1)
    cat_idx = torch.cat([top_pos_idx, top_neg_idx], dim=-1)
    topk_rand_idx = torch.topk(cat_rand, k=SUB_SAMPLE)[1]
    sampled_idxs = torch.gather(cat_idx, dim=-1, index=topk_rand_idx)
    sampled_input = torch.gather(input, dim=-2,
                                 index=sampled_idxs.unsqueeze(-1))
    sampled_labels = torch.gather(labels, dim=-1, index=sampled_idxs)
    return sampled_input, sampled_labels
