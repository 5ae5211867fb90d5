program c2
  use iso_fortran_env, only: lock_type, event_type, atomic_int_kind
  implicit none
  integer, parameter :: n = 6
  integer :: m(n, n)[*], row(n), me, np, i, j, right, left, errs, total, b
  integer(atomic_int_kind) :: counter[*], old, got
  type(lock_type) :: lk[*]
  type(event_type) :: ev[*]
  integer :: shared_sum[*]
  ! --bench N (scripts/clients-compare): N rounds of a strided coarray put to
  ! the right neighbour and a strided get from the left one, each round ended
  ! by sync all, timed on the slowest image
  character(len=32) :: arg
  integer :: rounds
  integer(8) :: t0, t1, rate
  real(8) :: secs
  real(8), allocatable :: big(:, :)[:], tmp(:, :)
  me = this_image(); np = num_images()
  right = mod(me, np) + 1; left = mod(me + np - 2, np) + 1
  errs = 0
  m = 0
  counter = 0
  shared_sum = 0
  sync all
  ! strided put: my row into column me of the right neighbour's matrix, every other element
  row = [(me * 100 + i, i = 1, n)]
  m(1:n:2, mod(me - 1, n) + 1)[right] = row(1:n:2)
  sync all
  do i = 1, n, 2
    if (m(i, mod(left - 1, n) + 1) /= left * 100 + i) errs = errs + 1
  end do
  ! strided get: a row (non-contiguous in memory) of the left neighbour's matrix
  m(2, :) = [(me * 1000 + j, j = 1, n)]
  sync all
  row = m(2, :)[left]
  do j = 1, n
    if (row(j) /= left * 1000 + j) errs = errs + 1
  end do
  sync all
  ! sync images with neighbours only
  if (np > 2) then
    sync images([left, right])
  else if (np == 2) then
    sync images(right)
  end if
  ! co_sum and co_broadcast
  total = me
  call co_sum(total)
  if (total /= np * (np + 1) / 2) errs = errs + 1
  b = 0
  if (me == np) b = 4242
  call co_broadcast(b, source_image=np)
  if (b /= 4242) errs = errs + 1
  ! atomics on image 1
  call atomic_add(counter[1], 2_atomic_int_kind)
  call atomic_fetch_add(counter[1], 1_atomic_int_kind, old)
  sync all
  call atomic_ref(got, counter[1])
  if (got /= 3 * np) errs = errs + 1
  sync all
  if (me == 1) call atomic_define(counter, 0_atomic_int_kind)
  sync all
  call atomic_cas(counter[1], old, int(me - 1, atomic_int_kind), int(me, atomic_int_kind))
  ! locks: a critical update of image 1's sum
  do i = 1, 5
    lock(lk[1])
    shared_sum[1] = shared_sum[1] + me
    unlock(lk[1])
  end do
  sync all
  if (me == 1 .and. shared_sum /= 5 * np * (np + 1) / 2) errs = errs + 1
  ! events: each image posts to its right neighbour and waits for its left
  event post(ev[right])
  event wait(ev)
  sync all
  call get_command_argument(1, arg)
  if (arg == '--bench') then
    call get_command_argument(2, arg)
    read (arg, *) rounds
    allocate (big(64, 64)[*])
    big = me
    sync all
    call system_clock(t0, rate)
    do i = 1, rounds
      big(1:64:2, :)[right] = big(2:64:2, :)
      tmp = big(:, 1:64:2)[left]
      sync all
    end do
    call system_clock(t1)
    secs = real(t1 - t0, 8) / real(rate, 8)
    call co_max(secs)
    if (me == 1) print '(a,i0,a,f12.6,a)', 'bench: ', rounds, &
      ' x (strided coarray put and get of 32x64 real(8), sync all) ', secs, ' seconds'
  end if
  call co_sum(errs)
  if (me == 1) then
    if (errs == 0) then
      print '(a)', ' No Errors'
    else
      print '(a,i0,a)', ' Found ', errs, ' errors'
      error stop 1
    end if
  end if
end program
