/* Decoding one datatype into its layout (datatype_decode.c); cached by datatype.c. */
#ifndef REMORA_CORE_DATATYPE_DECODE_H
#define REMORA_CORE_DATATYPE_DECODE_H

#include "core/datatype.h"

/* Fills *dt (blocks allocated with malloc).  MPI_SUCCESS, MPI_ERR_TYPE or MPI_ERR_NO_MEM. */
int remora_dt_decode(MPI_Datatype type, struct remora_dt *dt);

#endif
