! test_fortran.f90 — the Fortran module include/pillar.f90 against the C library: its status
! constants equal pillar.h's enum (every name the library's pillar_status_name gives has a
! constant of that value, and no other), and the wrappers convert strings and arrays: options
! given as blank-padded Fortran strings, messages and field names back as Fortran strings, fields
! of rank 1 and 2, double and float, in the caller's order (f(ncells, nlevels) == C's
! [nlevels][ncells]), absent optional arguments passed as NULL.
program test_fortran
    use pillar
    implicit none
    character(22), parameter :: names(9) = [character(22) :: 'PILLAR_OK', 'PILLAR_ERR_NULL', &
        'PILLAR_ERR_ARG', 'PILLAR_ERR_UNKNOWN', 'PILLAR_ERR_GRID', 'PILLAR_ERR_UNSUPPORTED', &
        'PILLAR_ERR_STATE', 'PILLAR_ERR_BACKEND', 'PILLAR_ERR_NOMEM']
    integer(c_int), parameter :: values(9) = [PILLAR_OK, PILLAR_ERR_NULL, PILLAR_ERR_ARG, &
        PILLAR_ERR_UNKNOWN, PILLAR_ERR_GRID, PILLAR_ERR_UNSUPPORTED, PILLAR_ERR_STATE, &
        PILLAR_ERR_BACKEND, PILLAR_ERR_NOMEM]
    integer, parameter :: N = 4, NZ = 2, NC = N * N ! a 4x4 lattice, row-major cells, 2 levels
    integer :: fails = 0, known = 0, i, x, y, c
    integer(c_int) :: s, nbr(4, NC), halo(NC), nin, nout, nc_got, nz_got
    character(:), allocatable :: name, msg
    character(16) :: padded
    type(c_ptr) :: ctx
    real(c_double) :: f(NC, NZ), g(NC, NZ), flat(NC * NZ), lap(NC, NZ)
    real(c_float) :: ff(NC, NZ)

    ! the statuses: each name the library knows is a constant of the same value, both ways
    do s = 0, 63
        name = pillar_status_name(s)
        if (index(name, 'unknown') > 0) cycle
        known = known + 1
        i = 0
        do c = 1, size(names)
            if (names(c) == name) i = c
        end do
        call expect(i > 0, 'the library''s ' // name // ' has a Fortran constant')
        if (i > 0) call expect(values(i) == s, name // ' has the library''s value')
    end do
    call expect(known == size(names), 'the library knows as many statuses as the module')
    do i = 1, size(names)
        call expect(pillar_status_name(values(i)) == trim(names(i)), &
                    trim(names(i)) // ' is named so by the library')
    end do
    call expect(pillar_last_error(c_null_ptr) == 'no handle', 'last error of no handle')

    ! strings both ways
    call expect(pillar_create(ctx) == PILLAR_OK, 'pillar_create')
    call expect(pillar_last_error(ctx) == '', 'no message after a success')
    call expect(pillar_set_option(ctx, 'stencil', 'nosuch') == PILLAR_ERR_UNKNOWN, &
                'an unknown stencil is refused')
    msg = pillar_last_error(ctx)
    call expect(index(msg, 'nosuch') > 0 .and. index(msg, 'laplap') > 0, &
                'its message names the value and the valid ones: ' // msg)
    padded = 'lap'
    call expect(pillar_set_option(ctx, 'stencil', padded) == PILLAR_OK, 'a blank-padded value')
    s = pillar_field_count(ctx, nin, nout)
    call expect(s == PILLAR_OK .and. nin == 1 .and. nout == 1, 'lap has one input and one output')
    call expect(pillar_field_count(ctx, nout=nout) == PILLAR_OK, 'an absent optional argument')
    s = pillar_field_name(ctx, 0, name)
    call expect(s == PILLAR_OK .and. name == 'in', 'field 0 is in')
    s = pillar_field_name(ctx, 1, name)
    call expect(s == PILLAR_OK .and. name == 'out', 'field 1 is out')
    s = pillar_field_name(ctx, 2, name)
    call expect(s == PILLAR_ERR_ARG .and. name == 'out', 'field 2 is refused, name left as it was')

    ! stencil files: the path and the name reach the library as given
    block
        type(c_ptr) :: other
        call expect(pillar_create(other) == PILLAR_OK, 'a second handle')
        call expect(pillar_set_stencil_file(other, '/no/such/dir/mine.c') /= PILLAR_OK, &
                    'a missing stencil file is refused')
        msg = pillar_last_error(other)
        call expect(index(msg, 'mine.c') > 0, 'its message names the file: ' // msg)
        call expect(pillar_set_stencil_source(other, 'inline-text', 'not a stencil') /= PILLAR_OK, &
                    'a text that is no stencil is refused')
        msg = pillar_last_error(other)
        call expect(index(msg, 'inline-text') > 0, 'its message names the text: ' // msg)
        call pillar_destroy(other)
    end block

    ! a 4x4 lattice: 0-based cell numbers, -1 beyond the edge; halo = the border ring
    do y = 0, N - 1
        do x = 0, N - 1
            c = y * N + x + 1
            nbr(:, c) = -1
            if (x > 0) nbr(1, c) = c - 2
            if (x < N - 1) nbr(2, c) = c
            if (y > 0) nbr(3, c) = c - 1 - N
            if (y < N - 1) nbr(4, c) = c - 1 + N
        end do
    end do
    call expect(pillar_set_option(ctx, 'backend', 'cpu') == PILLAR_OK, 'backend cpu')
    call expect(pillar_grid_quad(ctx, NC, NZ, nbr) == PILLAR_OK, 'pillar_grid_quad')
    call expect(pillar_setup(ctx) == PILLAR_OK, 'pillar_setup: ' // pillar_last_error(ctx))
    s = pillar_get_sizes(ctx, nc_got, nhalo=nin)
    call expect(s == PILLAR_OK .and. nc_got == NC .and. nin == 12, 'sizes, nlevels absent')
    s = pillar_get_sizes(ctx, nlevels=nz_got)
    call expect(s == PILLAR_OK .and. nz_got == NZ, 'levels, the others absent')
    s = pillar_get_halo(ctx, halo, NC)
    call expect(s == PILLAR_OK .and. count(halo /= 0) == 12 .and. halo(6) == 0 .and. &
                halo(7) == 0 .and. halo(10) == 0 .and. halo(11) == 0, 'the halo is the border')

    ! fields: f(c, z) = 10 z + c^2 / 16 (exact sums); lap(in)(c) = 4 in(c) - the 4 neighbours
    do i = 1, NZ
        do c = 1, NC
            f(c, i) = 10 * (i - 1) + (c - 1)**2 / 16d0
        end do
    end do
    call expect(pillar_set_field(ctx, 'out', f) == PILLAR_ERR_ARG, 'an output is no input')
    s = pillar_set_field(ctx, 'in', f(:, 1))
    msg = pillar_last_error(ctx)
    call expect(s == PILLAR_ERR_ARG .and. index(msg, '32') > 0, 'a wrong count: ' // msg)
    call expect(pillar_set_field(ctx, 'in', f) == PILLAR_OK, 'set in, rank 2')
    call expect(pillar_apply(ctx) == PILLAR_OK, 'pillar_apply')
    call expect(pillar_get_field(ctx, 'out', g) == PILLAR_OK, 'get out, rank 2')
    do i = 1, NZ
        do c = 1, NC
            if (halo(c) /= 0) then
                call expect(g(c, i) /= g(c, i), 'NaN at a halo cell')
            else
                lap(c, i) = 4 * f(c, i) - sum(f(nbr(:, c) + 1, i))
                call expect(g(c, i) == lap(c, i), 'lap at an inner cell, in the caller''s order')
            end if
        end do
    end do
    s = pillar_get_field(ctx, 'in', flat)
    call expect(s == PILLAR_OK .and. all(flat == reshape(f, [NC * NZ])), &
                'get in, rank 1: f(c, z) is C''s [z][c]')
    ff = real(f, c_float)
    call expect(pillar_set_field(ctx, 'in', ff) == PILLAR_OK, 'set in from real(c_float)')
    ff = 0
    s = pillar_get_field_float(ctx, 'in', ff)
    call expect(s == PILLAR_OK .and. all(ff == real(f, c_float)), 'get in into real(c_float)')
    call expect(pillar_step(ctx, 2) == PILLAR_OK, 'pillar_step')
    call expect(pillar_step(ctx, -1) == PILLAR_ERR_ARG, 'negative steps are refused')
    call pillar_destroy(ctx)

    if (fails > 0) then
        write (*, '(i0,a)') fails, ' check(s) failed'
        stop 1
    end if
    write (*, '(a)') 'all checks passed'
    ! the main program's allocatables are not freed at its end (gfortran keeps them on the stack):
    ! free them, so the leak check of the sanitizer build sees only the library's own
    if (allocated(name)) deallocate (name)
    if (allocated(msg)) deallocate (msg)

contains

    subroutine expect(ok, what)
        logical, intent(in) :: ok
        character(*), intent(in) :: what
        if (ok) return
        write (*, '(2a)') 'FAIL: ', what
        fails = fails + 1
    end subroutine
end program test_fortran
