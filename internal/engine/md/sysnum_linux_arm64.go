package md

import "syscall"

const sysFstatat = syscall.SYS_FSTATAT

const sysSyncfs = syscall.SYS_SYNCFS
