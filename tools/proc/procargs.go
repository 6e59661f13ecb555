package proc

import (
	"bytes"
	"encoding/binary"
)

// procArgsEnv returns the environment strings of a KERN_PROCARGS2 buffer,
// which is how macOS shows a process's start-up arguments and environment
// to processes of the same user: a native-endian int32 argc, the executable
// path, NUL padding, argc NUL-terminated arguments, then the environment
// followed by the system's own strings ("executable_path=...", which look
// like more variables). ok is false for a malformed buffer. It lives
// outside the darwin files so that its tests run everywhere.
func procArgsEnv(buf []byte) (env []string, ok bool) {
	if len(buf) < 4 {
		return nil, false
	}
	argc := int(int32(binary.NativeEndian.Uint32(buf)))
	rest := buf[4:]
	i := bytes.IndexByte(rest, 0)
	if argc < 0 || i < 0 {
		return nil, false
	}
	rest = bytes.TrimLeft(rest[i:], "\x00")
	for range argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil, false
		}
		rest = rest[i+1:]
	}
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			i = len(rest)
		}
		if i > 0 {
			env = append(env, string(rest[:i]))
		}
		rest = rest[min(i+1, len(rest)):]
	}
	return env, true
}
