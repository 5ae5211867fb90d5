# fft3d (apps/fft3d/main.c): both modes' transforms of a 24x32x16 grid (NY and
# NZ multiples of 16, the three sizes distinct so that a mix-up of axes
# shows) against rank 0's serial FFTW transform, every transform checked
# (--verify); two timed runs of two transforms after the warm-up, so the RMA
# receive window's two halves are each reused.  MPICH's ranks spin: at 16
# ranks on 2 cores this size still takes only a few seconds.
motif_test(fft3d ARGS --verify --n 24,32,16 --iterations 2 --repeat 2)
