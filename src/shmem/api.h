/* How the front end exports a routine: defined as pshmem_X (the profiling
 * interface's name), with shmem_X a weak alias of it, so that a profiling
 * tool can define shmem_X and call pshmem_X. */
#ifndef REMORA_SHMEM_API_H
#define REMORA_SHMEM_API_H

#define REMORA_SHMEM_ALIAS(name) extern __typeof__(p##name) name __attribute__((weak, alias("p" #name)))

#endif
