/*===- Launch.h - The launch entry points of a FlyDSL runtime -----*- C -*-===*
 *
 * The one boundary between compiled host code and a runtime (HIP or the
 * emulator). A `@flyc.jit` body becomes native host code (fly/HostEntry.h)
 * that loads its code objects, looks up kernels and launches them through
 * MLIR's GPU runtime-wrapper ABI (mgpuModuleLoad, mgpuLaunchKernel, ...).
 * Those mgpu* symbols are shims that forward to the table below, which a
 * runtime installs with fly_runtime_install_launch_table. This header is
 * plain C and needs neither MLIR nor LLVM: a runtime includes it and
 * nothing else of the compiler.
 *
 * Every entry returns 0 on success. On failure it returns nonzero and
 * `last_error(context)` gives a message for the calling thread's last
 * failure; the host code turns it into an error of the call that launched
 * (never an abort).
 *
 *===----------------------------------------------------------------------===*/

#ifndef FLY_RUNTIME_LAUNCH_H
#define FLY_RUNTIME_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The geometry of one launch. `cluster` is {0, 0, 0} for an ordinary launch
 * and the cluster's size in workgroups for a cluster launch (gfx1250). */
typedef struct FlyLaunchConfig {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t cluster[3];
  uint32_t shared_memory_bytes; /* dynamic LDS */
  void *stream;
} FlyLaunchConfig;

/* FLY_PARAM_COUNT_UNKNOWN: MLIR's cluster launch does not pass the number
 * of kernel parameters; the runtime takes it from the kernel's metadata. */
#define FLY_PARAM_COUNT_UNKNOWN ((size_t)-1)

typedef struct FlyLaunchTable {
  /* sizeof(FlyLaunchTable) as the runtime was built: a table of another
   * size is refused at install. */
  size_t size;
  /* Passed back as the first argument of every entry. */
  void *context;

  /* Loads a code object (`size` bytes at `data`) into `*module`. */
  int (*module_load)(void *context, const void *data, size_t size,
                     void **module);
  int (*module_unload)(void *context, void *module);
  /* The kernel `name` (NUL-terminated) of a loaded module. */
  int (*get_function)(void *context, void *module, const char *name,
                      void **function);
  /* Launches `function`. `params[i]` points at the value of the kernel's
   * i-th parameter (as hipModuleLaunchKernel's kernelParams), laid out as
   * the kernel's signature after fly-rewrite-func-signature says: a
   * pointer, a struct of i32/i64 leaves in LLVM's natural layout, or a
   * scalar. */
  int (*launch)(void *context, void *function, const FlyLaunchConfig *config,
                void **params, size_t num_params);
  int (*stream_create)(void *context, void **stream);
  int (*stream_synchronize)(void *context, void *stream);
  int (*stream_destroy)(void *context, void *stream);
  /* The message of the calling thread's last failure of an entry. */
  const char *(*last_error)(void *context);
} FlyLaunchTable;

/* Installs `table` (NULL uninstalls) for every thread; returns 0, or
 * nonzero for a table whose `size` is not this header's. The table must
 * outlive its use. Modules loaded through a previous table are loaded
 * again through the new one at their next launch. */
int fly_runtime_install_launch_table(const FlyLaunchTable *table);

/* The installed table, or NULL. */
const FlyLaunchTable *fly_runtime_launch_table(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* FLY_RUNTIME_LAUNCH_H */
