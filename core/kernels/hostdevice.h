#pragma once
// Marks small functions that run on the host and inside CUDA kernels alike.
#if defined(__CUDACC__)
#define SYNCSCOPE_HOST_DEVICE __host__ __device__
#else
#define SYNCSCOPE_HOST_DEVICE
#endif
