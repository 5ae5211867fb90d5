# dsde: all four modes (alltoall, reduce_scatter, nbx, rma) in one run, each
# checked by --verify: every rank replays every rank's random targets and must
# have received exactly its messages, none lost, duplicated or foreign.
# --k 2 keeps the exchange sparse from 4 ranks on (with k >= ranks - 1 every
# rank sends to all others every round: no choice left to get wrong);
# 8 rounds use both halves of the rma window several times, and --repeat 2
# starts a second run on the same window and new targets.  16 MPICH ranks spin
# on 2 cores: these sizes keep np16 to seconds.
motif_test(dsde ARGS --verify --k 2 --rounds 8 --repeat 2)
