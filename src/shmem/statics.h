/* The program's global and static data as symmetric memory (statics.c). */
#ifndef REMORA_SHMEM_STATICS_H
#define REMORA_SHMEM_STATICS_H

/* Collective (shmem_init): publish the executable's writable segments.  0 or -1 alike everywhere. */
int remora_shmem_statics_init(void);
void remora_shmem_statics_finalize(void);

#endif
