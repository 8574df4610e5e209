! test_fortran_decomp.f90 — a model's own decomposition through the Fortran module (include/
! pillar.f90) under mpirun -np 4: a doubly periodic lattice (a torus, no halo cells of its own)
! cut into strips of rows, one a rank; each rank holds its strip and every row within
! radius x F = 4 of it, owned cells in reverse order then the halo rows, with 0-based global ids
! and the local table (-1 where a neighbour is not held). pillar_set_decomposition,
! pillar_step (on the rank's share: no note in pillar_last_error): every local cell (owned and
! halo) equals, bit for bit, a handle without a communicator on the whole torus; the same with
! the model's own exchange (a bind(C) function
! given by pillar_set_halo_exchange: an MPI_Allreduce of the owned values); a rank with no owned
! cell is refused with PILLAR_ERR_GRID and the same message on every rank.
module decomp_model
    use pillar
    use mpi
    implicit none
    integer, parameter :: NX = 8, NY = 24, NZ = 3, NCELL = NX * NY
    integer :: nloc = 0, nown = 0, calls = 0
    integer(c_int), allocatable :: gid(:), nbr(:, :)
contains
    ! Rank me's strip of NY/P rows and every row within depth of it; gid, nbr, nloc, nown.
    subroutine make_local(me, p, depth)
        integer, intent(in) :: me, p, depth
        integer :: y0, y1, y, x, d, dy, i, s, v, w(4)
        integer :: g2l(0:NCELL - 1), order(NCELL)
        y0 = me * NY / p
        y1 = (me + 1) * NY / p - 1
        nown = 0
        do y = y1, y0, -1 ! owned cells in reverse order
            do x = NX - 1, 0, -1
                nown = nown + 1
                order(nown) = y * NX + x
            end do
        end do
        nloc = nown
        do d = 1, depth ! then the halo rows, nearest first, below before above
            do dy = -1, 1, 2
                y = modulo(merge(y0 - d, y1 + d, dy < 0), NY)
                if (y >= y0 .and. y <= y1) cycle
                if (any(order(1:nloc) == y * NX)) cycle ! a row reached from both sides
                do x = 0, NX - 1
                    nloc = nloc + 1
                    order(nloc) = y * NX + x
                end do
            end do
        end do
        if (allocated(gid)) deallocate(gid, nbr)
        allocate(gid(nloc), nbr(4, nloc))
        gid = order(1:nloc)
        g2l = -1
        do i = 1, nloc
            g2l(gid(i)) = i - 1
        end do
        do i = 1, nloc
            x = modulo(gid(i), NX)
            y = gid(i) / NX
            w = [y * NX + modulo(x - 1, NX), y * NX + modulo(x + 1, NX), &
                 modulo(y - 1, NY) * NX + x, modulo(y + 1, NY) * NX + x] ! W, E, S, N
            do s = 1, 4
                v = w(s)
                nbr(s, i) = g2l(v)
            end do
        end do
    end subroutine

    ! The model's own exchange: the owned values summed over the ranks into the whole torus
    ! (each cell owned once), read back at the halo cells.
    integer(c_int) function exchange(user, field, values, nlevels, ncells, on_device) bind(C)
        type(c_ptr), value :: user, field, values
        integer(c_int), value :: nlevels, ncells, on_device
        real(c_double), pointer :: f(:, :)
        real(c_double) :: all(0:NCELL - 1, NZ), sum(0:NCELL - 1, NZ)
        integer :: i, ierr
        exchange = 1
        if (on_device /= 0 .or. ncells /= nloc .or. nlevels /= NZ) return
        call c_f_pointer(values, f, [ncells, nlevels])
        all = 0
        do i = 1, nown
            all(gid(i), :) = f(i, :)
        end do
        call MPI_Allreduce(all, sum, NCELL * NZ, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, &
                           ierr)
        do i = nown + 1, ncells
            f(i, :) = sum(gid(i), :)
        end do
        calls = calls + 1
        exchange = 0
    end function
end module

program test_fortran_decomp
    use decomp_model
    implicit none
    integer :: me, p, ierr, fails = 0, total, x, y, i, k
    integer(c_int) :: all_cells(4, NCELL), ids(NCELL)
    real(c_double), allocatable :: ref(:, :), f(:, :)
    character(:), allocatable :: msg
    character(1024) :: first
    type(c_ptr) :: ctx

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
    if (p /= 4) then
        if (me == 0) print '(a)', 'test_fortran_decomp: run with mpirun -np 4'
        call MPI_Finalize(ierr)
        stop 77
    end if

    ! the reference: the whole torus, no communicator
    do y = 0, NY - 1
        do x = 0, NX - 1
            all_cells(:, y * NX + x + 1) = [y * NX + modulo(x - 1, NX), y * NX + modulo(x + 1, NX), &
                                            modulo(y - 1, NY) * NX + x, modulo(y + 1, NY) * NX + x]
        end do
    end do
    ids = [(i - 1, i = 1, NCELL)]
    allocate(ref(NCELL, NZ))
    call open_handle(ctx)
    call check(pillar_grid_quad(ctx, NCELL, NZ, all_cells), 'the whole torus')
    call check(pillar_setup(ctx), 'setup')
    call inputs(ids, NCELL, NCELL, ref)
    call check(pillar_set_field(ctx, 'in', ref), 'set in')
    call check(pillar_step(ctx, 5), 'the one-rank run')
    call check(pillar_get_field(ctx, 'in', ref), 'get in')
    call pillar_destroy(ctx)

    do k = 0, 1 ! pillar's exchange, then the model's own
        call make_local(me, p, 4)
        allocate(f(nloc, NZ))
        calls = 0
        call open_handle(ctx)
        call check(pillar_grid_quad(ctx, nloc, NZ, nbr), 'the local table')
        call check(pillar_set_decomposition(ctx, MPI_COMM_WORLD, nown, gid), 'the decomposition')
        if (k == 1) call check(pillar_set_halo_exchange(ctx, c_funloc(exchange), c_null_ptr), &
                               'the model''s exchange')
        call check(pillar_setup(ctx), 'setup')
        call inputs(gid, nloc, nown, f)
        call check(pillar_set_field(ctx, 'in', f), 'set in')
        call check(pillar_step(ctx, 5), 'the steps')
        if (k == 0 .and. len(pillar_last_error(ctx)) > 0) then ! on the rank's share: no note
            fails = fails + 1
            print '(a,i0,2a)', 'rank ', me, ': ', pillar_last_error(ctx)
        end if
        call check(pillar_get_field(ctx, 'in', f), 'get in')
        do i = 1, nloc
            if (any(transfer(f(i, :), 0_8, NZ) /= transfer(ref(gid(i) + 1, :), 0_8, NZ))) then
                fails = fails + 1
                print '(a,i0,a,i0,a,i0,a,i0)', 'rank ', me, ': exchange ', k, ': local cell ', &
                    i - 1, ' differs from the one-rank run at global ', gid(i)
                exit
            end if
        end do
        if (k == 1 .and. calls /= 1 + 3) then ! the input once, then after each of 3 passes
            fails = fails + 1
            print '(a,i0,a)', 'the model''s exchange ran ', calls, ' times, expected 4'
        end if
        call pillar_destroy(ctx)
        deallocate(f)
    end do

    ! a rank with no owned cell: refused on every rank alike
    call make_local(me, p, 4)
    call open_handle(ctx)
    call check(pillar_grid_quad(ctx, nloc, NZ, nbr), 'the local table')
    i = pillar_set_decomposition(ctx, MPI_COMM_WORLD, merge(0, nown, me == 3), gid)
    msg = pillar_last_error(ctx)
    if (i /= PILLAR_ERR_GRID .or. index(msg, 'rank 3 owns no cell') == 0) then
        fails = fails + 1
        print '(a,i0,a,i0,2a)', 'rank ', me, ': status ', i, ', message: ', msg
    end if
    first = msg
    call MPI_Bcast(first, len(first), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
    if (first /= msg) then
        fails = fails + 1
        print '(a,i0,4a)', 'rank ', me, ' says ', msg, ', rank 0 ', trim(first)
    end if
    call pillar_destroy(ctx)

    call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (me == 0) print '(a,i0,a)', 'test_fortran_decomp: 4 ranks, ', total, ' failures'
    call MPI_Finalize(ierr)
    if (total /= 0) stop 1

contains
    subroutine open_handle(h)
        type(c_ptr), intent(out) :: h
        call check(pillar_create(h), 'create')
        call check(pillar_set_option(h, 'stencil', 'laplap'), 'stencil')
        call check(pillar_set_option(h, 'backend', 'cpu'), 'backend')
        call check(pillar_set_option(h, 'fuse', '2'), 'fuse')
    end subroutine

    ! Input values by global id (garbage at halo cells, from nown on: the exchange replaces it).
    subroutine inputs(g, n, nown_, v)
        integer, intent(in) :: n, nown_
        integer(c_int), intent(in) :: g(n)
        real(c_double), intent(out) :: v(n, NZ)
        integer :: c, z
        do z = 1, NZ
            do c = 1, n
                v(c, z) = merge(0.5d0 + 0.25d0 * modulo(g(c) * 7919 + z * 31, 1000) / 1000d0, &
                                1d3 + c, c <= nown_)
            end do
        end do
    end subroutine

    subroutine check(s, what)
        integer(c_int), intent(in) :: s
        character(*), intent(in) :: what
        if (s /= PILLAR_OK) then
            fails = fails + 1
            print '(a,i0,4a)', 'rank ', me, ': ', what, ': ', pillar_last_error(ctx)
        end if
    end subroutine
end program
