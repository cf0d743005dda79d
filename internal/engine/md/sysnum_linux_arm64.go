package md

import "syscall"

const sysFstatat = syscall.SYS_FSTATAT
