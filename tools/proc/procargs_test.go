package proc

import (
	"encoding/binary"
	"slices"
	"testing"
)

func TestProcArgsEnv(t *testing.T) {
	procargs := func(argc int32, body string) []byte {
		return append(binary.NativeEndian.AppendUint32(nil, uint32(argc)), body...)
	}
	tests := []struct {
		name string
		buf  []byte
		want []string
		ok   bool
	}{
		{"args then env", procargs(2, "/bin/bash\x00\x00\x00\x00bash\x00-c\x00PATH=/bin\x00MYCLAW_RUN_ab=1\x00\x00executable_path=/bin/bash\x00"),
			[]string{"PATH=/bin", "MYCLAW_RUN_ab=1", "executable_path=/bin/bash"}, true},
		// An argument that looks like the marker is not the environment.
		{"marker as an argument", procargs(2, "/bin/echo\x00\x00echo\x00MYCLAW_RUN_ab=1\x00HOME=/h\x00"),
			[]string{"HOME=/h"}, true},
		{"empty argument", procargs(3, "/bin/x\x00\x00x\x00\x00y\x00A=1\x00"), []string{"A=1"}, true},
		{"no environment", procargs(1, "/bin/x\x00x\x00"), nil, true},
		{"short", []byte{1, 0}, nil, false},
		{"argc beyond the buffer", procargs(5, "/bin/x\x00x\x00"), nil, false},
		{"no executable path end", procargs(0, "/bin/x"), nil, false},
		{"negative argc", procargs(-1, "/bin/x\x00"), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := procArgsEnv(tt.buf)
			if ok != tt.ok || !slices.Equal(got, tt.want) {
				t.Errorf("procArgsEnv = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
