//go:build unix

package walk

import "syscall"

const openNonBlock = syscall.O_NONBLOCK
