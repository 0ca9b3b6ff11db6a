#pragma once
// Nsight Systems input: the SQLite export of a report (`nsys export --type
// sqlite`), read row by row through prepared statements, never whole, into the
// same model a Chrome trace gives. A `.nsys-rep` is exported first with the
// nsys on PATH, into a temporary file removed afterwards.
//
// What becomes what:
//  - CUPTI_ACTIVITY_KIND_RUNTIME: cuda_runtime calls on their thread, the
//    name without its version suffix (cudaStreamSynchronize_v3020 ->
//    cudaStreamSynchronize), with their correlation.
//  - ..._KERNEL, ..._MEMCPY, ..._MEMSET: GPU activity on (device, stream),
//    copies and sets named as Kineto names them ("Memcpy HtoD (Pageable ->
//    Device)", "Memset (Device)").
//  - ..._SYNCHRONIZATION: cuda_sync records (Event Sync, Stream Wait Event,
//    Stream Sync, Context Sync) on (device, stream); a wait or event sync
//    names its event record's stream where the export has the record
//    (CUPTI_ACTIVITY_KIND_CUDA_EVENT).
//  - NVTX_EVENTS push/pop ranges: ops on their thread; PyTorch's "aten::mm,
//    seq = 7, op_id = 9" is op aten::mm with its "Sequence number".
//  - OSRT_API: OS runtime calls on their thread (category os_runtime).
// Each process that launched GPU work is a rank: "REPORT.sqlite#PID" loads that
// process alone, "REPORT.sqlite" all of them in one model.
#include "common/progress.h"
#include "trace/tracemodel.h"

#include <memory>
#include <string>
#include <vector>

namespace syncscope {

// Whether the path names Nsight Systems input: a `.nsys-rep`, or an SQLite
// database (by its header), either with or without a "#PID" suffix.
bool isNsysInput(const std::string &path);

// Loads an Nsight Systems export (or report, exported first). Fatal problems
// (not SQLite, not an export, a table lacking a column the model needs, a
// corrupt file, no nsys for a report) throw Error with one sentence naming the
// file; Cancelled when the token fires. Progress runs from 0 to 1.
TraceModelPtr loadNsysTrace(const std::string &path, const ProgressFn &progress = {},
                            const CancelToken *cancel = nullptr);

// The processes of an export that launched GPU work (kernels, copies, sets),
// by pid.
std::vector<int64_t> nsysGpuProcesses(const std::string &sqlitePath);

// Trace inputs with every Nsight Systems file of two or more GPU processes
// replaced by one "FILE#PID" per process, in pid order; other paths as given.
// `exports` keeps the temporary exports of reports alive: loading a
// "REPORT.nsys-rep#PID" meanwhile reads them instead of exporting again.
struct TraceInputs {
    std::vector<std::string> paths;
    std::vector<std::shared_ptr<const void>> exports;
};
// Exporting a report may take a while: it stops (Cancelled) when the token fires.
TraceInputs expandTraceInputs(const std::vector<std::string> &paths, const CancelToken *cancel = nullptr);

} // namespace syncscope
