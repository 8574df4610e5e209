! timeloop.f90 — a Fortran model's time loop calling libpillar through the module `pillar`
! (include/pillar.f90, docs/api.md): the Fortran twin of examples/c/timeloop.c.
!
! The "model" owns a bounded NX x NY lattice with NZ levels whose cells it numbers in its own
! scrambled order, and a field state(NCELLS, NZ) in that order (column-major: exactly C's
! [NZ][NCELLS]). It builds the quad neighbour table nbr(4, NCELLS) itself (0-based cell numbers,
! -1 beyond the edge), hands it to pillar, sets its field, and advances it T steps of laplap's
! damping (in <- in - laplap(in)/64), one pillar_step per model step, printing a diagnostic now
! and then. At the end it applies the stencil once more to read the output `out`.
!
! usage: timeloop_f [--steps T] [--backend cpu|gpu|auto] [--files PREFIX]
!   --files PREFIX  also writes PREFIX.mesh.h5 (the grid), PREFIX.initial.h5 (the initial field)
!                   and PREFIX.final.h5 (the field after T steps), all in the model's cell order,
!                   so that `pillar run --steps T --mesh PREFIX.mesh.h5 --input
!                   PREFIX.initial.h5 --output G` can be compared with PREFIX.final.h5.
program timeloop
    use, intrinsic :: ieee_arithmetic, only: ieee_is_nan
    use pillar
    implicit none
    integer, parameter :: NX = 24, NY = 16, NZ = 5, NCELLS = NX * NY
    integer(c_int) :: nbr(4, NCELLS), halo(NCELLS), perm(NCELLS)
    real(c_double) :: state(NCELLS, NZ), out(NCELLS, NZ)
    type(c_ptr) :: ctx
    character(4096) :: arg, backend, prefix
    integer(c_int) :: steps, got_cells, got_levels, nhalo, st
    integer :: i, t, x, y, z, c
    real(c_double) :: dx, dy, lo, hi, norm
    logical :: nan_at_halo

    steps = 20
    backend = 'auto'
    prefix = ''
    i = 1
    do while (i <= command_argument_count())
        call get_command_argument(i, arg)
        if (i < command_argument_count() .and. (arg == '--steps' .or. arg == '--backend' &
                                                .or. arg == '--files')) then
            i = i + 1
            select case (arg)
            case ('--steps')
                call get_command_argument(i, arg)
                read (arg, *) steps
            case ('--backend')
                call get_command_argument(i, backend)
            case default
                call get_command_argument(i, prefix)
            end select
        else
            write (0, '(a)') 'usage: timeloop_f [--steps T] [--backend cpu|gpu|auto] [--files P]'
            stop 2
        end if
        i = i + 1
    end do

    ! the model's grid: W, E, S, N of each of its cells, -1 beyond the lattice's edge
    do y = 0, NY - 1
        do x = 0, NX - 1
            c = cell_of(x, y) + 1
            nbr(:, c) = -1
            if (x > 0) nbr(1, c) = cell_of(x - 1, y)
            if (x < NX - 1) nbr(2, c) = cell_of(x + 1, y)
            if (y > 0) nbr(3, c) = cell_of(x, y - 1)
            if (y < NY - 1) nbr(4, c) = cell_of(x, y + 1)
        end do
    end do
    ! the model's state: a smooth bump plus a level-dependent ripple, in its own order
    do z = 0, NZ - 1
        do y = 0, NY - 1
            do x = 0, NX - 1
                dx = x - NX / 2.0d0
                dy = y - NY / 2.0d0
                state(cell_of(x, y) + 1, z + 1) = exp(-(dx * dx + dy * dy) / 20.0d0) &
                                                  + 0.1d0 * (z + 1) * cos(1.3d0 * x + 0.7d0 * y)
            end do
        end do
    end do

    st = pillar_create(ctx)
    if (st /= PILLAR_OK) then
        write (0, '(2a)') 'timeloop_f: pillar_create: ', pillar_status_name(st)
        stop 1
    end if
    call check(pillar_set_option(ctx, 'stencil', 'laplap'), 'stencil')
    call check(pillar_set_option(ctx, 'order', 'metis'), 'order')
    call check(pillar_set_option(ctx, 'backend', backend), 'backend')
    call check(pillar_grid_quad(ctx, NCELLS, NZ, nbr), 'grid')
    call check(pillar_setup(ctx), 'setup')

    call check(pillar_get_sizes(ctx, got_cells, got_levels, nhalo), 'sizes')
    call check(pillar_get_halo(ctx, halo, NCELLS), 'halo')
    call check(pillar_get_permutation(ctx, perm, NCELLS), 'permutation')
    write (*, '(a,i0,a,i0,a,i0,a,i0)') 'grid: ', got_cells, ' cells (', nhalo, ' halo) x ', &
        got_levels, ' levels; model cell 0 is pillar''s cell ', perm(1)

    call check(pillar_set_field(ctx, 'in', state), 'set in')
    if (prefix /= '') then
        call check(pillar_write_mesh(ctx, trim(prefix) // '.mesh.h5'), 'write mesh')
        call check(pillar_write_fields(ctx, trim(prefix) // '.initial.h5'), 'write initial')
    end if

    do t = 1, steps
        call check(pillar_step(ctx, 1), 'step')
        if (mod(t, 5) == 0 .or. t == steps) then ! the model's diagnostic: inner cells, level 0
            call check(pillar_get_field(ctx, 'in', state), 'get in')
            lo = minval(state(:, 1), mask=halo == 0)
            hi = maxval(state(:, 1), mask=halo == 0)
            write (*, '(a,i3,4a)') 'step ', t, ': level 0 inner cells in [', fixed6(lo), ', ', &
                fixed6(hi) // ']'
        end if
    end do
    if (prefix /= '') then
        call check(pillar_write_fields(ctx, trim(prefix) // '.final.h5'), 'write final')
    end if

    ! one application of the stencil to the final state: laplap(in) at the inner cells
    call check(pillar_apply(ctx), 'apply')
    call check(pillar_get_field(ctx, 'out', out), 'get out')
    norm = 0
    nan_at_halo = .true.
    do z = 1, NZ
        do c = 1, NCELLS
            if (halo(c) /= 0) then
                nan_at_halo = nan_at_halo .and. ieee_is_nan(out(c, z))
            else
                norm = norm + out(c, z)**2
            end if
        end do
    end do
    write (*, '(a,es13.6,a)', advance='no') 'laplap of the final state: rms ', &
        sqrt(norm / (NZ * (NCELLS - nhalo))), ' over the inner cells'
    if (nan_at_halo) then
        write (*, '(a)') '; NaN at the halo cells'
    else
        write (*, '(a)') '; NOT NaN at some halo cell'
    end if
    call pillar_destroy(ctx)
    if (.not. nan_at_halo) stop 1

contains

    ! The model's numbering (0-based): lattice point (x, y) is cell cell_of(x, y), a permutation
    ! made by a fixed multiplicative scramble (gcd(37, NCELLS) = 1).
    integer(c_int) function cell_of(x, y)
        integer, intent(in) :: x, y
        cell_of = int(mod(int(y * NX + x, 8) * 37 + 11, int(NCELLS, 8)), c_int)
    end function

    ! v with 6 decimals, as C's %.6f
    function fixed6(v) result(s)
        real(c_double), intent(in) :: v
        character(:), allocatable :: s
        character(32) :: buf
        write (buf, '(f32.6)') v
        s = trim(adjustl(buf))
        if (s(1:1) == '.') s = '0' // s
        if (s(1:2) == '-.') s = '-0' // s(2:)
    end function

    ! A status that is not PILLAR_OK ends the program with pillar's message.
    subroutine check(st, what)
        integer(c_int), intent(in) :: st
        character(*), intent(in) :: what
        if (st == PILLAR_OK) return
        write (0, '(6a)') 'timeloop_f: ', what, ': ', pillar_status_name(st), ': ', &
            pillar_last_error(ctx)
        call pillar_destroy(ctx)
        stop 1
    end subroutine
end program timeloop
