! pillar.f90 — the Fortran module `pillar` over libpillar's C API (include/pillar.h; docs/api.md
! gives every contract). Fortran 2008 with ISO_C_BINDING (and OPTIONAL arguments of interoperable
! procedures, TS 29113: gfortran >= 4.9, ifort/ifx, nvfortran, flang).
!
!   use pillar
!   type(c_ptr) :: ctx
!   real(c_double) :: f(ncells, nlevels)      ! the caller's cell order, level by level
!   integer(c_int) :: nbr(4, ncells)          ! W, E, S, N of each cell: 0-based cells, -1 = none
!   call check(pillar_create(ctx))
!   call check(pillar_set_option(ctx, 'stencil', 'laplap'))
!   call check(pillar_grid_quad(ctx, ncells, nlevels, nbr))
!   call check(pillar_setup(ctx))
!   call check(pillar_set_field(ctx, 'in', f))
!   call check(pillar_step(ctx, 10))
!   call check(pillar_get_field(ctx, 'in', f))
!   call pillar_destroy(ctx)
!
! Names. Every function of pillar.h has its C name here. Where C takes or gives a string, or a
! field with its count, the Fortran name is a thin wrapper (below) and the bind(C) interface
! itself is public as c_<name> (for a caller that passes NUL-terminated strings itself):
!   - strings in: Fortran character(*), trailing blanks removed, NUL appended by the wrapper;
!   - strings out (pillar_last_error, pillar_status_name, pillar_field_name): an allocatable
!     Fortran character, a copy (it stays valid after the handle is gone);
!   - fields: pillar_set_field / pillar_get_field are generic over real(c_double) (pillar's
!     *_field) and real(c_float) (*_field_float), rank 1 or 2; the count is size(values).
! The other functions (create, destroy, the grids, setup, sizes, permutation, halo, field_count,
! apply, step, set_comm, set_decomposition, set_halo_exchange) are the bind(C) interfaces
! themselves. Statuses are integer(c_int) values, the named constants PILLAR_OK ...
! PILLAR_ERR_NOMEM, equal to pillar.h's enum (test fortran_api).
!
! Arrays. A field is C's values[nlevels][ncells]: the value of cell c at level z at index
! z*ncells + c. In Fortran that is exactly `real(c_double) :: f(ncells, nlevels)`, column-major:
! f(c+1, z+1) is cell c at level z (the first index runs over the cells, the second over the
! levels; an array f(nlevels, ncells) has the right size but the wrong layout, and nothing can
! tell). Likewise the quad neighbour table is `integer(c_int) :: nbr(4, ncells)` (nbr(1:4, c+1) =
! W, E, S, N of cell c), the general one adj(maxdeg, ncells), coordinates xyz(ncoord, ncells).
! Cell NUMBERS in those tables and in pillar_get_permutation's perm are 0-based, as in C (-1 =
! no neighbour); the position of a cell in an array is its number + 1. A non-contiguous array
! section is passed as a contiguous copy (copy-in / copy-out) by the compiler.
!
! Build: compile this file with the program (or use the pillar.mod an installed pillar built with
! Fortran ships next to it) and link libpillar; examples/fortran/CMakeLists.txt does both through
! find_package(pillar).
module pillar
    use, intrinsic :: iso_c_binding
    implicit none
    private
    ! the C types a caller needs, so that `use pillar` suffices
    public :: c_ptr, c_null_ptr, c_int, c_double, c_float, c_size_t, c_associated
    ! and those a halo exchange of the model's own needs (pillar_set_halo_exchange)
    public :: c_funptr, c_null_funptr, c_funloc, c_f_pointer

    integer(c_int), parameter, public :: PILLAR_API_VERSION = 1

    ! pillar_status (pillar.h): the same values
    integer(c_int), parameter, public :: &
        PILLAR_OK = 0, &
        PILLAR_ERR_NULL = 1, &        ! a required pointer argument is NULL
        PILLAR_ERR_ARG = 2, &         ! a number out of range, a wrong array size, a bad value
        PILLAR_ERR_UNKNOWN = 3, &     ! an unknown option, option value, stencil or field name
        PILLAR_ERR_GRID = 4, &        ! the neighbour table or mesh file is not a valid grid
        PILLAR_ERR_UNSUPPORTED = 5, & ! valid, but this stencil / grid / backend cannot do it
        PILLAR_ERR_STATE = 6, &       ! called out of order (e.g. an option after pillar_setup)
        PILLAR_ERR_BACKEND = 7, &     ! the backend failed (no GPU, a CUDA error)
        PILLAR_ERR_NOMEM = 8          ! pillar_create could not allocate its handle

    ! the bind(C) interfaces used under their C names
    public :: pillar_create, pillar_destroy, pillar_grid_quad, pillar_grid_general, &
              pillar_set_coordinates, pillar_setup, pillar_get_sizes, pillar_get_permutation, &
              pillar_get_halo, pillar_field_count, pillar_apply, pillar_step, pillar_set_comm, &
              pillar_set_decomposition, pillar_set_halo_exchange
    ! the interface a model's own halo exchange has (pillar_set_halo_exchange)
    public :: pillar_halo_fn
    ! the wrappers
    public :: pillar_last_error, pillar_status_name, pillar_set_option, pillar_grid_file, &
              pillar_field_name, pillar_set_field, pillar_set_field_float, pillar_get_field, &
              pillar_get_field_float, pillar_write_mesh, pillar_write_fields, &
              pillar_set_field_device, pillar_set_field_device_float, pillar_get_field_device, &
              pillar_get_field_device_float, pillar_set_stencil_file, pillar_set_stencil_source, &
              pillar_bind_field_device, pillar_bind_field_device_float
    ! the bind(C) interfaces behind the wrappers
    public :: c_pillar_last_error, c_pillar_status_name, c_pillar_set_option, c_pillar_grid_file, &
              c_pillar_field_name, c_pillar_set_field, c_pillar_set_field_float, &
              c_pillar_get_field, c_pillar_get_field_float, c_pillar_write_mesh, &
              c_pillar_write_fields, c_pillar_set_field_device, &
              c_pillar_set_field_device_float, c_pillar_get_field_device, &
              c_pillar_get_field_device_float, c_pillar_set_stencil_file, &
              c_pillar_set_stencil_source, c_pillar_bind_field_device, &
              c_pillar_bind_field_device_float

    interface
        integer(c_int) function pillar_create(ctx) bind(C, name='pillar_create')
            import :: c_int, c_ptr
            type(c_ptr), intent(out) :: ctx
        end function
        subroutine pillar_destroy(ctx) bind(C, name='pillar_destroy')
            import :: c_ptr
            type(c_ptr), value :: ctx
        end subroutine
        type(c_ptr) function c_pillar_last_error(ctx) bind(C, name='pillar_last_error')
            import :: c_ptr
            type(c_ptr), value :: ctx
        end function
        type(c_ptr) function c_pillar_status_name(s) bind(C, name='pillar_status_name')
            import :: c_ptr, c_int
            integer(c_int), value :: s
        end function
        integer(c_int) function c_pillar_set_option(ctx, key, value) &
            bind(C, name='pillar_set_option')
            import :: c_int, c_ptr, c_char
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: key(*), value(*)
        end function
        integer(c_int) function pillar_grid_quad(ctx, ncells, nlevels, nbr) &
            bind(C, name='pillar_grid_quad')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), value :: ncells, nlevels
            integer(c_int), intent(in) :: nbr(*)
        end function
        integer(c_int) function pillar_grid_general(ctx, ncells, nlevels, maxdeg, adj) &
            bind(C, name='pillar_grid_general')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), value :: ncells, nlevels, maxdeg
            integer(c_int), intent(in) :: adj(*)
        end function
        integer(c_int) function c_pillar_set_stencil_file(ctx, path) &
            bind(C, name='pillar_set_stencil_file')
            import :: c_int, c_ptr, c_char
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: path(*)
        end function
        integer(c_int) function c_pillar_set_stencil_source(ctx, name, source) &
            bind(C, name='pillar_set_stencil_source')
            import :: c_int, c_ptr, c_char
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: name(*), source(*)
        end function
        integer(c_int) function c_pillar_grid_file(ctx, path) bind(C, name='pillar_grid_file')
            import :: c_int, c_ptr, c_char
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: path(*)
        end function
        integer(c_int) function pillar_set_coordinates(ctx, ncells, ncoord, xyz) &
            bind(C, name='pillar_set_coordinates')
            import :: c_int, c_ptr, c_double
            type(c_ptr), value :: ctx
            integer(c_int), value :: ncells, ncoord
            real(c_double), intent(in) :: xyz(*)
        end function
        integer(c_int) function pillar_setup(ctx) bind(C, name='pillar_setup')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
        end function
        ! an absent argument is passed as NULL (skipped)
        integer(c_int) function pillar_get_sizes(ctx, ncells, nlevels, nhalo) &
            bind(C, name='pillar_get_sizes')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), intent(out), optional :: ncells, nlevels, nhalo
        end function
        ! perm(c+1) = pillar's internal cell (0-based) of the caller's cell c
        integer(c_int) function pillar_get_permutation(ctx, perm, ncells) &
            bind(C, name='pillar_get_permutation')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), intent(out) :: perm(*)
            integer(c_int), value :: ncells
        end function
        ! halo(c+1) = 1 if the caller's cell c is a halo cell, else 0
        integer(c_int) function pillar_get_halo(ctx, halo, ncells) bind(C, name='pillar_get_halo')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), intent(out) :: halo(*)
            integer(c_int), value :: ncells
        end function
        integer(c_int) function pillar_field_count(ctx, nin, nout) &
            bind(C, name='pillar_field_count')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), intent(out), optional :: nin, nout
        end function
        ! k is 0-based, as in C
        integer(c_int) function c_pillar_field_name(ctx, k, name) bind(C, name='pillar_field_name')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), value :: k
            type(c_ptr), intent(out) :: name
        end function
        integer(c_int) function c_pillar_set_field(ctx, name, values, count) &
            bind(C, name='pillar_set_field')
            import :: c_int, c_ptr, c_char, c_double, c_size_t
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: name(*)
            real(c_double), intent(in) :: values(*)
            integer(c_size_t), value :: count
        end function
        integer(c_int) function c_pillar_set_field_float(ctx, name, values, count) &
            bind(C, name='pillar_set_field_float')
            import :: c_int, c_ptr, c_char, c_float, c_size_t
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: name(*)
            real(c_float), intent(in) :: values(*)
            integer(c_size_t), value :: count
        end function
        integer(c_int) function c_pillar_get_field(ctx, name, values, count) &
            bind(C, name='pillar_get_field')
            import :: c_int, c_ptr, c_char, c_double, c_size_t
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: name(*)
            real(c_double), intent(inout) :: values(*)
            integer(c_size_t), value :: count
        end function
        integer(c_int) function c_pillar_get_field_float(ctx, name, values, count) &
            bind(C, name='pillar_get_field_float')
            import :: c_int, c_ptr, c_char, c_float, c_size_t
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: name(*)
            real(c_float), intent(inout) :: values(*)
            integer(c_size_t), value :: count
        end function
        ! the four device-array calls share one shape: the array is a device address (c_ptr:
        ! OpenACC's host_data use_device, CUDA Fortran's c_devloc, or cudaMalloc through C)
        integer(c_int) function c_pillar_set_field_device(ctx, name, values, count) &
            bind(C, name='pillar_set_field_device')
            import :: c_int, c_ptr, c_char, c_size_t
            type(c_ptr), value :: ctx, values
            character(kind=c_char), intent(in) :: name(*)
            integer(c_size_t), value :: count
        end function
        integer(c_int) function c_pillar_set_field_device_float(ctx, name, values, count) &
            bind(C, name='pillar_set_field_device_float')
            import :: c_int, c_ptr, c_char, c_size_t
            type(c_ptr), value :: ctx, values
            character(kind=c_char), intent(in) :: name(*)
            integer(c_size_t), value :: count
        end function
        integer(c_int) function c_pillar_get_field_device(ctx, name, values, count) &
            bind(C, name='pillar_get_field_device')
            import :: c_int, c_ptr, c_char, c_size_t
            type(c_ptr), value :: ctx, values
            character(kind=c_char), intent(in) :: name(*)
            integer(c_size_t), value :: count
        end function
        integer(c_int) function c_pillar_get_field_device_float(ctx, name, values, count) &
            bind(C, name='pillar_get_field_device_float')
            import :: c_int, c_ptr, c_char, c_size_t
            type(c_ptr), value :: ctx, values
            character(kind=c_char), intent(in) :: name(*)
            integer(c_size_t), value :: count
        end function
        ! binding: values stays the caller's device array (c_null_ptr unbinds)
        integer(c_int) function c_pillar_bind_field_device(ctx, name, values, count) &
            bind(C, name='pillar_bind_field_device')
            import :: c_int, c_ptr, c_char, c_size_t
            type(c_ptr), value :: ctx, values
            character(kind=c_char), intent(in) :: name(*)
            integer(c_size_t), value :: count
        end function
        integer(c_int) function c_pillar_bind_field_device_float(ctx, name, values, count) &
            bind(C, name='pillar_bind_field_device_float')
            import :: c_int, c_ptr, c_char, c_size_t
            type(c_ptr), value :: ctx, values
            character(kind=c_char), intent(in) :: name(*)
            integer(c_size_t), value :: count
        end function
        integer(c_int) function pillar_apply(ctx) bind(C, name='pillar_apply')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
        end function
        integer(c_int) function pillar_step(ctx, steps) bind(C, name='pillar_step')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), value :: steps
        end function
        ! comm: the integer communicator (MPI_COMM_WORLD, or a communicator's %MPI_VAL with
        ! mpi_f08); every rank then calls pillar_step collectively (docs/distributed.md)
        integer(c_int) function pillar_set_comm(ctx, comm) bind(C, name='pillar_set_comm')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), value :: comm
        end function
        ! a model's own decomposition (pillar.h; docs/distributed.md): comm the integer
        ! communicator, the rank's local grid given before (pillar_grid_quad or _general: local
        ! 0-based cells, -1 = none or not held), its first nowned cells owned, gid(ncells) their
        ! 0-based global ids; collective, before pillar_setup
        integer(c_int) function pillar_set_decomposition(ctx, comm, nowned, gid) &
            bind(C, name='pillar_set_decomposition')
            import :: c_int, c_ptr
            type(c_ptr), value :: ctx
            integer(c_int), value :: comm, nowned
            integer(c_int), intent(in) :: gid(*)
        end function
        ! fn = c_funloc(f) of a function with the interface pillar_halo_fn (c_null_funptr:
        ! pillar exchanges again); user is handed back to it
        integer(c_int) function pillar_set_halo_exchange(ctx, fn, user) &
            bind(C, name='pillar_set_halo_exchange')
            import :: c_int, c_ptr, c_funptr
            type(c_ptr), value :: ctx
            type(c_funptr), value :: fn
            type(c_ptr), value :: user
        end function
        integer(c_int) function c_pillar_write_mesh(ctx, path) bind(C, name='pillar_write_mesh')
            import :: c_int, c_ptr, c_char
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: path(*)
        end function
        integer(c_int) function c_pillar_write_fields(ctx, path) &
            bind(C, name='pillar_write_fields')
            import :: c_int, c_ptr, c_char
            type(c_ptr), value :: ctx
            character(kind=c_char), intent(in) :: path(*)
        end function
        ! libc, to measure the strings the library gives
        integer(c_size_t) function c_strlen(s) bind(C, name='strlen')
            import :: c_size_t, c_ptr
            type(c_ptr), value :: s
        end function
    end interface

    ! A model's own halo exchange (pillar_set_halo_exchange): field the field's name (a
    ! NUL-terminated C string), values its local array (ncells, nlevels) in the handle's
    ! precision, in host memory (on_device 0): c_f_pointer(values, f, [ncells, nlevels]) with
    ! real(c_double), pointer :: f(:,:) (real(c_float) for precision float). Gives every halo
    ! cell its owner's values; returns 0 (nonzero fails the call on every rank).
    abstract interface
        integer(c_int) function pillar_halo_fn(user, field, values, nlevels, ncells, on_device) &
            bind(C)
            import :: c_int, c_ptr
            type(c_ptr), value :: user, field, values
            integer(c_int), value :: nlevels, ncells, on_device
        end function
    end interface

    ! fields: real(c_double) or real(c_float), rank 1 (ncells*nlevels) or 2 (ncells, nlevels)
    interface pillar_set_field
        module procedure set_field_d1, set_field_d2, set_field_f1, set_field_f2
    end interface
    interface pillar_set_field_float
        module procedure set_field_f1, set_field_f2
    end interface
    interface pillar_get_field
        module procedure get_field_d1, get_field_d2, get_field_f1, get_field_f2
    end interface
    interface pillar_get_field_float
        module procedure get_field_f1, get_field_f2
    end interface

contains

    ! A Fortran string as a NUL-terminated C string (trailing blanks removed).
    pure function c_string(s) result(c)
        character(*), intent(in) :: s
        character(kind=c_char, len=len_trim(s) + 1) :: c
        c = trim(s) // c_null_char
    end function

    ! A copy of the NUL-terminated C string at p ('' for a null pointer).
    function f_string(p) result(s)
        type(c_ptr), intent(in) :: p
        character(:), allocatable :: s
        character(kind=c_char), pointer :: chars(:)
        integer :: i, n
        if (.not. c_associated(p)) then
            s = ''
            return
        end if
        n = int(c_strlen(p))
        call c_f_pointer(p, chars, [n])
        allocate(character(n) :: s)
        do i = 1, n
            s(i:i) = chars(i)
        end do
    end function

    ! The message of the handle's last failed call ('' if none).
    function pillar_last_error(ctx) result(msg)
        type(c_ptr), intent(in) :: ctx
        character(:), allocatable :: msg
        msg = f_string(c_pillar_last_error(ctx))
    end function

    ! The name of a status ('PILLAR_ERR_ARG'), for messages.
    function pillar_status_name(s) result(name)
        integer(c_int), intent(in) :: s
        character(:), allocatable :: name
        name = f_string(c_pillar_status_name(s))
    end function

    integer(c_int) function pillar_set_option(ctx, key, value)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: key, value
        pillar_set_option = c_pillar_set_option(ctx, c_string(key), c_string(value))
    end function

    ! a stencil file (docs/own-stencil.md), or its text (lines joined with new_line('a'))
    integer(c_int) function pillar_set_stencil_file(ctx, path)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: path
        pillar_set_stencil_file = c_pillar_set_stencil_file(ctx, c_string(path))
    end function
    integer(c_int) function pillar_set_stencil_source(ctx, name, source)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name, source
        pillar_set_stencil_source = c_pillar_set_stencil_source(ctx, c_string(name), &
                                                                c_string(source))
    end function

    integer(c_int) function pillar_grid_file(ctx, path)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: path
        pillar_grid_file = c_pillar_grid_file(ctx, c_string(path))
    end function

    ! The name of field k (0-based: inputs 0..nin-1, then the outputs), a copy; name is unchanged
    ! on failure.
    integer(c_int) function pillar_field_name(ctx, k, name)
        type(c_ptr), intent(in) :: ctx
        integer(c_int), intent(in) :: k
        character(:), allocatable, intent(inout) :: name
        type(c_ptr) :: p
        pillar_field_name = c_pillar_field_name(ctx, k, p)
        if (pillar_field_name == PILLAR_OK) name = f_string(p)
    end function

    ! device arrays: values is the device address, count = nlevels * ncells
    integer(c_int) function pillar_set_field_device(ctx, name, values, count) result(st)
        type(c_ptr), intent(in) :: ctx, values
        character(*), intent(in) :: name
        integer(c_size_t), intent(in) :: count
        st = c_pillar_set_field_device(ctx, c_string(name), values, count)
    end function
    integer(c_int) function pillar_set_field_device_float(ctx, name, values, count) result(st)
        type(c_ptr), intent(in) :: ctx, values
        character(*), intent(in) :: name
        integer(c_size_t), intent(in) :: count
        st = c_pillar_set_field_device_float(ctx, c_string(name), values, count)
    end function
    integer(c_int) function pillar_get_field_device(ctx, name, values, count) result(st)
        type(c_ptr), intent(in) :: ctx, values
        character(*), intent(in) :: name
        integer(c_size_t), intent(in) :: count
        st = c_pillar_get_field_device(ctx, c_string(name), values, count)
    end function
    integer(c_int) function pillar_get_field_device_float(ctx, name, values, count) result(st)
        type(c_ptr), intent(in) :: ctx, values
        character(*), intent(in) :: name
        integer(c_size_t), intent(in) :: count
        st = c_pillar_get_field_device_float(ctx, c_string(name), values, count)
    end function

    ! pillar_bind_field_device: the device array used by every later step and apply
    integer(c_int) function pillar_bind_field_device(ctx, name, values, count) result(st)
        type(c_ptr), intent(in) :: ctx, values
        character(*), intent(in) :: name
        integer(c_size_t), intent(in) :: count
        st = c_pillar_bind_field_device(ctx, c_string(name), values, count)
    end function
    integer(c_int) function pillar_bind_field_device_float(ctx, name, values, count) result(st)
        type(c_ptr), intent(in) :: ctx, values
        character(*), intent(in) :: name
        integer(c_size_t), intent(in) :: count
        st = c_pillar_bind_field_device_float(ctx, c_string(name), values, count)
    end function

    integer(c_int) function set_field_d1(ctx, name, values) result(st)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name
        real(c_double), intent(in), contiguous :: values(:)
        st = c_pillar_set_field(ctx, c_string(name), values, int(size(values), c_size_t))
    end function
    integer(c_int) function set_field_d2(ctx, name, values) result(st)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name
        real(c_double), intent(in), contiguous :: values(:, :)
        st = c_pillar_set_field(ctx, c_string(name), values, int(size(values), c_size_t))
    end function
    integer(c_int) function set_field_f1(ctx, name, values) result(st)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name
        real(c_float), intent(in), contiguous :: values(:)
        st = c_pillar_set_field_float(ctx, c_string(name), values, int(size(values), c_size_t))
    end function
    integer(c_int) function set_field_f2(ctx, name, values) result(st)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name
        real(c_float), intent(in), contiguous :: values(:, :)
        st = c_pillar_set_field_float(ctx, c_string(name), values, int(size(values), c_size_t))
    end function

    ! intent(inout): where the library writes nothing (a failure), values keep what they held
    integer(c_int) function get_field_d1(ctx, name, values) result(st)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name
        real(c_double), intent(inout), contiguous :: values(:)
        st = c_pillar_get_field(ctx, c_string(name), values, int(size(values), c_size_t))
    end function
    integer(c_int) function get_field_d2(ctx, name, values) result(st)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name
        real(c_double), intent(inout), contiguous :: values(:, :)
        st = c_pillar_get_field(ctx, c_string(name), values, int(size(values), c_size_t))
    end function
    integer(c_int) function get_field_f1(ctx, name, values) result(st)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name
        real(c_float), intent(inout), contiguous :: values(:)
        st = c_pillar_get_field_float(ctx, c_string(name), values, int(size(values), c_size_t))
    end function
    integer(c_int) function get_field_f2(ctx, name, values) result(st)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: name
        real(c_float), intent(inout), contiguous :: values(:, :)
        st = c_pillar_get_field_float(ctx, c_string(name), values, int(size(values), c_size_t))
    end function

    integer(c_int) function pillar_write_mesh(ctx, path)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: path
        pillar_write_mesh = c_pillar_write_mesh(ctx, c_string(path))
    end function

    integer(c_int) function pillar_write_fields(ctx, path)
        type(c_ptr), intent(in) :: ctx
        character(*), intent(in) :: path
        pillar_write_fields = c_pillar_write_fields(ctx, c_string(path))
    end function
end module pillar
