! Every family of the RMA chapter from Fortran, through mpif.h (built with
! -DFTEST_MPIF_H), the mpi module (the default) or the mpi_f08 module (built
! with -DFTEST_F08): windows of every flavour, put/get,
! accumulates and atomics, request-based operations, fence, post/start/
! complete/wait/test, lock/unlock, lock_all, flushes, win_sync, attributes
! (predefined and a keyval with a Fortran delete callback), name, info,
! group, error handlers (predefined and a Fortran one), MPI_Alloc_mem.  Data
! is verified; through Remora every window must be one of Remora's
! (remora_win_served on MPI_Win_f2c of the Fortran handle), and
! MPI_Win_shared_query must serve MPI_Win_allocate windows (MPI-4.0; the
! hosts refuse it).  Rank 0 prints "No Errors".
! MPI_USE goes before IMPLICIT NONE, MPI_INCLUDE after it: a module is used
! there, mpif.h is included here.
#if defined(FTEST_F08)
#define MPI_USE use mpi_f08
#define MPI_INCLUDE
#define HANDLE(t) type(t)
#define FVAL(x) x%MPI_VAL
#elif defined(FTEST_MPIF_H)
#define MPI_USE
#define MPI_INCLUDE include 'mpif.h'
#define HANDLE(t) integer
#define FVAL(x) x
#else
#define MPI_USE use mpi
#define MPI_INCLUDE
#define HANDLE(t) integer
#define FVAL(x) x
#endif

module ftest_util
  use iso_c_binding
  implicit none
  integer :: nerr = 0
  integer :: ndeleted = 0
  integer :: nraised = 0, raised_code = 0, raised_win = 0
  interface
    integer(c_int) function ftest_remora_mode() bind(C, name="ftest_remora_mode")
      import :: c_int
    end function
    integer(c_int) function ftest_win_served(win) bind(C, name="ftest_win_served")
      import :: c_int
      integer(c_int), value :: win
    end function
  end interface
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      nerr = nerr + 1
      print '(a,a)', 'FAIL: ', what
    end if
  end subroutine
end module

module ftest_callbacks
  use ftest_util
  MPI_USE
  implicit none
  MPI_INCLUDE
  private
  public :: count_delete, on_error
contains
  subroutine count_delete(win, keyval, attr, extra, ierr)
    HANDLE(MPI_Win) :: win
    integer :: keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: attr, extra
    call check(attr == 4242_MPI_ADDRESS_KIND, 'the delete callback sees the value set')
    call check(extra == 77_MPI_ADDRESS_KIND, 'the delete callback sees the extra state')
    ndeleted = ndeleted + 1
    ierr = MPI_SUCCESS
  end subroutine
  ! A user error handler: what it is called with, for the program to check.
  subroutine on_error(win, code)
    HANDLE(MPI_Win) :: win
    integer :: code
    nraised = nraised + 1
    raised_code = code
    raised_win = FVAL(win)
  end subroutine
end module

program f_rma
  use ftest_util
  use ftest_callbacks
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer, parameter :: n = 8
  integer :: ierr, rank, nproc, right, left, i, cls, keyval, du, nrank, flen, cmp, total
  HANDLE(MPI_Win) :: win
  HANDLE(MPI_Group) :: grp, wgrp
  HANDLE(MPI_Info) :: info, info2
  HANDLE(MPI_Comm) :: nodecomm
  HANDLE(MPI_Request) :: req
  HANDLE(MPI_Errhandler) :: errh
  integer(kind=MPI_ADDRESS_KIND) :: disp, sz, val, extra, qsize, addr, one8, cmp8
  logical :: flag, remora
  ! memory that RMA changes behind the compiler's back is VOLATILE
  integer, target, volatile :: local(n)
  integer :: buf(n)
  ! results that RMA completes after the call returns are VOLATILE too
  integer, volatile :: res(n)
  integer(kind=MPI_ADDRESS_KIND), volatile :: old8
  integer, pointer, volatile :: arr(:), peer(:)
  type(c_ptr) :: baseptr, qptr
  character(len=MPI_MAX_OBJECT_NAME) :: wname
  character(len=64) :: ival

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  right = mod(rank + 1, nproc)
  left = mod(rank + nproc - 1, nproc)
  remora = ftest_remora_mode() /= 0
  disp = 0

  ! ---- MPI_Win_allocate: fence, put, get; predefined attributes; shared_query
  sz = n * 4
  call MPI_Win_allocate(sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_allocate')
  if (remora) call check(ftest_win_served(FVAL(win)) /= 0, 'MPI_Win_allocate: the window is Remora''s')
  call c_f_pointer(baseptr, arr, [n])
  arr = -1
  call MPI_Win_fence(0, win, ierr)
  buf = [(rank * 100 + i, i = 1, n)]
  call MPI_Put(buf, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(all(arr == [(left * 100 + i, i = 1, n)]), 'MPI_Put under fence')
  res = 0
  call MPI_Get(res, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(all(res == [(rank * 100 + i, i = 1, n)]), 'MPI_Get under fence')
  call MPI_Win_get_attr(win, MPI_WIN_BASE, val, flag, ierr)
  call check(flag .and. val == transfer(baseptr, val), 'MPI_WIN_BASE')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag, ierr)
  call check(flag .and. val == sz, 'MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, val, flag, ierr)
  call check(flag .and. val == 4, 'MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, val, flag, ierr)
  call check(flag .and. val == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_get_attr(win, MPI_WIN_MODEL, val, flag, ierr)
  call check(flag .and. val == MPI_WIN_UNIFIED, 'MPI_WIN_MODEL')
  if (remora) then
    call MPI_Win_shared_query(win, rank, qsize, du, qptr, ierr)
    call check(ierr == MPI_SUCCESS .and. qsize == sz .and. du == 4 .and. c_associated(qptr, baseptr), &
               'MPI_Win_shared_query on an MPI_Win_allocate window')
  end if
  call MPI_Win_free(win, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_free')

  ! ---- MPI_Win_create on a Fortran array: lock/unlock, accumulates, atomics
  local = 0
  sz = n * 4
  call MPI_Win_create(local, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  if (remora) call check(ftest_win_served(FVAL(win)) /= 0, 'MPI_Win_create: the window is Remora''s')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  buf = [(i, i = 1, n)]
  call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win, ierr)
  call MPI_Accumulate(buf, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_unlock(right, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierr)
  call check(all(local == [(i, i = 1, n)]), 'MPI_Accumulate SUM')
  call MPI_Win_unlock(rank, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win, ierr)
  call MPI_Get_accumulate(buf, n, MPI_INTEGER, res, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_flush(right, win, ierr)
  call check(all(res == [(i, i = 1, n)]), 'MPI_Get_accumulate returns the old values')
  call MPI_Fetch_and_op(buf(1), res(1), MPI_INTEGER, right, disp, MPI_SUM, win, ierr)
  call MPI_Win_flush(right, win, ierr)
  call check(res(1) == 2, 'MPI_Fetch_and_op returns the old value')
  cmp = 3
  call MPI_Compare_and_swap(buf(2), cmp, res(2), MPI_INTEGER, right, disp, win, ierr)
  call MPI_Win_unlock(right, win, ierr)
  call check(res(2) == 3, 'MPI_Compare_and_swap returns the old value')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierr)
  call check(local(1) == 2 .and. local(2) == 4 .and. local(3) == 6, 'accumulates and swap at the target')
  call MPI_Win_unlock(rank, win, ierr)
  call MPI_Win_free(win, ierr)

  ! ---- request-based operations, lock_all, flushes, win_sync
  local = 0
  call MPI_Win_create(local, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_lock_all(0, win, ierr)
  buf = [(rank + i, i = 1, n)]
  call MPI_Rput(buf, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, win, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Win_flush_all(win, ierr)
  call MPI_Rget(res, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, win, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(all(res == buf), 'MPI_Rput then MPI_Rget')
  call MPI_Raccumulate(buf, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, MPI_SUM, win, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Win_flush_local(right, win, ierr)
  call MPI_Win_flush_local_all(win, ierr)
  call MPI_Rget_accumulate(buf, 0, MPI_INTEGER, res, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, MPI_NO_OP, &
                           win, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(all(res == 2 * buf), 'MPI_Raccumulate then MPI_Rget_accumulate NO_OP')
  call MPI_Win_sync(win, ierr)
  call MPI_Win_unlock_all(win, ierr)
  call MPI_Win_free(win, ierr)

  ! ---- post/start/complete/wait/test with groups
  local = 0
  call MPI_Win_create(local, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, wgrp, ierr)
  call MPI_Group_incl(wgrp, 1, [left], grp, ierr)
  call MPI_Win_post(grp, 0, win, ierr)
  call MPI_Group_free(grp, ierr)
  call MPI_Group_incl(wgrp, 1, [right], grp, ierr)
  call MPI_Win_start(grp, 0, win, ierr)
  buf = [(rank * 3 + i, i = 1, n)]
  call MPI_Put(buf, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, win, ierr)
  call MPI_Win_complete(win, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Win_test(win, flag, ierr)
  end do
  call check(all(local == [(left * 3 + i, i = 1, n)]), 'MPI_Put under post/start/complete/test')
  call MPI_Win_post(grp, 0, win, ierr)  ! a second epoch, closed by wait
  call MPI_Group_free(grp, ierr)
  call MPI_Group_incl(wgrp, 1, [left], grp, ierr)
  call MPI_Win_start(grp, 0, win, ierr)
  call MPI_Get(res, n, MPI_INTEGER, left, disp, n, MPI_INTEGER, win, ierr)
  call MPI_Win_complete(win, ierr)
  call MPI_Win_wait(win, ierr)
  call check(all(res == [(mod(left + nproc - 1, nproc) * 3 + i, i = 1, n)]), 'MPI_Get under post/start/complete/wait')
  call MPI_Group_free(grp, ierr)

  ! ---- attributes with a Fortran keyval, name, info, group, error handler
  extra = 77
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, keyval, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create_keyval')
  val = 4242
  call MPI_Win_set_attr(win, keyval, val, ierr)
  val = 0
  call MPI_Win_get_attr(win, keyval, val, flag, ierr)
  call check(flag .and. val == 4242_MPI_ADDRESS_KIND, 'a user attribute set and got')
  call MPI_Win_delete_attr(win, keyval, ierr)
  call check(ndeleted == 1, 'MPI_Win_delete_attr calls the Fortran delete callback')
  call MPI_Win_get_attr(win, keyval, val, flag, ierr)
  call check(.not. flag, 'a deleted attribute is gone')
  val = 4242
  call MPI_Win_set_attr(win, keyval, val, ierr)   ! deleted by MPI_Win_free below
  call MPI_Win_set_name(win, 'fortran window', ierr)
  call MPI_Win_get_name(win, wname, flen, ierr)
#if defined(FTEST_F08) && defined(FTEST_OPENMPI)
  ! Open MPI 4.1.4's mpi_f08 MPI_Win_get_name returns the first character and
  ! then garbage, over the host alone too (its own string conversion)
  call check(flen == 14, 'MPI_Win_get_name''s length')
#else
  call check(wname(1:flen) == 'fortran window' .and. flen == 14, 'MPI_Win_set_name / MPI_Win_get_name')
#endif
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'accumulate_ordering', 'none', ierr)
  call MPI_Win_set_info(win, info, ierr)
  call MPI_Info_free(info, ierr)
  call MPI_Win_get_info(win, info2, ierr)
  call MPI_Info_get(info2, 'accumulate_ordering', 64, ival, flag, ierr)
  ! (Open MPI's osc/pt2pt alone does not give the key back)
  if (remora) call check(flag .and. trim(ival) == 'none', 'MPI_Win_set_info / MPI_Win_get_info')
  call MPI_Info_free(info2, ierr)
  call MPI_Win_get_group(win, grp, ierr)
  call MPI_Group_compare(grp, wgrp, cmp, ierr)
  call check(cmp == MPI_IDENT, 'MPI_Win_get_group')
  call MPI_Group_free(grp, ierr)
  call MPI_Group_free(wgrp, ierr)
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win, ierr)
  call MPI_Put(buf, 1, MPI_INTEGER, nproc + 5, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Error_class(ierr, cls, i)
  call check(cls == MPI_ERR_RANK, 'an erroneous MPI_Put returns MPI_ERR_RANK under MPI_ERRORS_RETURN')
  ! a Fortran user error handler, called with the Fortran handle and the code
  call MPI_Win_create_errhandler(on_error, errh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_create_errhandler (Fortran handler)')
  call MPI_Win_set_errhandler(win, errh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_set_errhandler (Fortran handler)')
  call MPI_Errhandler_free(errh, ierr)
  call MPI_Put(buf, 1, MPI_INTEGER, nproc + 5, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Error_class(ierr, cls, i)
  call check(nraised == 1 .and. cls == MPI_ERR_RANK, 'an erroneous MPI_Put calls the Fortran handler, returns MPI_ERR_RANK')
  call MPI_Error_class(raised_code, cls, i)
  call check(cls == MPI_ERR_RANK .and. raised_win == FVAL(win), 'the Fortran handler gets the window and the code')
  call MPI_Win_call_errhandler(win, MPI_ERR_OTHER, ierr)
  call check(nraised == 2 .and. raised_code == MPI_ERR_OTHER .and. raised_win == FVAL(win), 'MPI_Win_call_errhandler')
  call MPI_Win_get_errhandler(win, errh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Win_get_errhandler (Fortran handler)')
  call MPI_Errhandler_free(errh, ierr)
  call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierr)
  call MPI_Win_unlock(right, win, ierr)
  call MPI_Win_free(win, ierr)
  call check(ndeleted == 2, 'MPI_Win_free deletes the attribute (Fortran callback)')
  call MPI_Win_free_keyval(keyval, ierr)
  call check(keyval == MPI_KEYVAL_INVALID, 'MPI_Win_free_keyval')

  ! ---- MPI_Win_create_dynamic: attach, MPI_Get_address, put, detach
  call MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  if (remora) call check(ftest_win_served(FVAL(win)) /= 0, 'MPI_Win_create_dynamic: the window is Remora''s')
  local = 0
  call MPI_Win_attach(win, local, sz, ierr)
  call MPI_Get_address(local, addr, ierr)
  call MPI_Sendrecv(addr, 1, MPI_AINT, left, 0, val, 1, MPI_AINT, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Win_lock_all(0, win, ierr)
  buf = [(rank * 7 + i, i = 1, n)]
  call MPI_Put(buf, n, MPI_INTEGER, right, val, n, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock_all(win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win, ierr)
  call check(all(local == [(left * 7 + i, i = 1, n)]), 'MPI_Put into an attached region')
  call MPI_Win_unlock(rank, win, ierr)
  call MPI_Win_detach(win, local, ierr)
  call MPI_Win_free(win, ierr)

  ! ---- MPI_Win_allocate_shared on the node: loads through shared_query
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, nodecomm, ierr)
  call MPI_Comm_rank(nodecomm, nrank, ierr)
  sz = n * 4
  call MPI_Win_allocate_shared(sz, 4, MPI_INFO_NULL, nodecomm, baseptr, win, ierr)
  if (remora) call check(ftest_win_served(FVAL(win)) /= 0, 'MPI_Win_allocate_shared: the window is Remora''s')
  call c_f_pointer(baseptr, arr, [n])
  call MPI_Win_lock_all(0, win, ierr)
  arr = [(nrank * 11 + i, i = 1, n)]
  call MPI_Win_sync(win, ierr)
  call MPI_Barrier(nodecomm, ierr)
  call MPI_Win_sync(win, ierr)
  call MPI_Win_shared_query(win, 0, qsize, du, qptr, ierr)
  call c_f_pointer(qptr, peer, [n])
  call check(qsize == sz .and. du == 4 .and. all(peer == [(i, i = 1, n)]), 'loads through MPI_Win_shared_query')
  call MPI_Win_unlock_all(win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_Comm_free(nodecomm, ierr)

  ! ---- 8-byte atomics and MPI_Alloc_mem memory
  sz = 8
  call MPI_Alloc_mem(sz, MPI_INFO_NULL, baseptr, ierr)
  call alloc_mem_atomics()
  call free_alloc_mem()

  call MPI_Allreduce(nerr, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', ' No Errors'
    else
      print '(a,i0,a)', ' Found ', total, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains
  ! MPI_Alloc_mem memory under a window: 8-byte fetch-and-op and compare-and-swap
  subroutine alloc_mem_atomics()
    integer(kind=MPI_ADDRESS_KIND), pointer, volatile :: word
    HANDLE(MPI_Win) :: w8
    call c_f_pointer(baseptr, word)
    word = 0
    call MPI_Win_create(word, sz, 8, MPI_INFO_NULL, MPI_COMM_WORLD, w8, ierr)
    call MPI_Win_fence(0, w8, ierr)
    one8 = 1
    call MPI_Fetch_and_op(one8, old8, MPI_INTEGER8, right, disp, MPI_SUM, w8, ierr)
    call MPI_Win_fence(0, w8, ierr)
    call check(old8 == 0 .and. word == 1, 'MPI_Fetch_and_op on MPI_INTEGER8 in MPI_Alloc_mem memory')
    call MPI_Win_fence(0, w8, ierr)  ! everyone has checked before the next epoch changes it
    cmp8 = 1
    one8 = 5
    call MPI_Compare_and_swap(one8, cmp8, old8, MPI_INTEGER8, right, disp, w8, ierr)
    call MPI_Win_fence(0, w8, ierr)
    call check(old8 == 1 .and. word == 5, 'MPI_Compare_and_swap on MPI_INTEGER8')
    call MPI_Win_free(w8, ierr)
  end subroutine
  subroutine free_alloc_mem()
    integer(kind=MPI_ADDRESS_KIND), pointer :: word
    call c_f_pointer(baseptr, word)
    call MPI_Free_mem(word, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Free_mem')
  end subroutine
end program
