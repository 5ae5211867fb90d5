# milc (apps/milc/main.c): both modes' CG on a 4D SU(3) lattice against rank
# 0's serial CG of the whole lattice (--verify: same iteration count, every
# rank's block of the solution within a relative 1e-10, the residual
# decreased).  Blocks of 2x2x2x4 sites: from 1 to 16 ranks every face is
# exchanged with oneself (1 rank in a dimension), with one rank across both
# faces (2 ranks) or with distinct ranks.  --mass 1 and --tolerance 1e-4
# stop CG after 13 iterations (26 Dslashes: the RMA mode's two buffers are
# each reused many times, and the stop must come at the serial CG's
# iteration); --repeat 2 solves again on the same window.  MPICH's ranks
# spin: at 16 ranks on 2 cores this size still takes only a few seconds.
motif_test(milc ARGS --verify --local 2,2,2,4 --mass 1 --iterations 100 --tolerance 1e-4 --repeat 2)
