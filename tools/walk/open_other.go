//go:build !unix

package walk

// openNonBlock is nothing where there are no FIFOs to wait on.
const openNonBlock = 0
