package md

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT

const sysSyncfs = 306 // not in package syscall on amd64
