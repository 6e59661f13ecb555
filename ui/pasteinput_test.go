package ui

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// chunkReader hands out data the way a terminal does: each Read gets at
// most the rest of the current chunk (a write of the terminal's), or with
// sizes, of the next size.
type chunkReader struct {
	chunks []string
	sizes  []int
	i      int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 && c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.chunks[0]))
	if len(c.sizes) > 0 {
		n = min(n, c.sizes[c.i%len(c.sizes)])
		c.i++
	}
	n = copy(p, c.chunks[0][:n])
	c.chunks[0] = c.chunks[0][n:]
	return n, nil
}

// readAll reads r to its end with Bubble Tea's 256-byte buffer.
func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	var out bytes.Buffer
	buf := make([]byte, 256)
	for range 1 << 20 {
		n, err := r.Read(buf)
		out.Write(buf[:n])
		if errors.Is(err, io.EOF) {
			return out.String()
		}
	}
	t.Fatal("the reader never reached the end")
	return ""
}

func TestPasteReaderTakesPastesOut(t *testing.T) {
	check := func(t *testing.T, r *pasteReader, want string, texts ...string) {
		t.Helper()
		if got := readAll(t, r); got != want {
			t.Fatalf("Bubble Tea gets %q; want %q", got, want)
		}
		var queued []string
		for s, ok := r.q.pop(); ok; s, ok = r.q.pop() {
			queued = append(queued, s)
		}
		if fmt.Sprintf("%q", queued) != fmt.Sprintf("%q", texts) {
			t.Fatalf("queued %q; want %q", queued, texts)
		}
	}
	// Keys and pastes in one burst, read 256 bytes at a time: every marker
	// falls across the end of a read somewhere.
	for pad := 200; pad <= 300; pad++ {
		k := strings.Repeat("k", pad)
		in := k + pasteStart + "first\nline" + pasteEnd + "\x1b[A" + pasteStart + pasteEnd + "é" + pasteStart + "third" + pasteEnd + "z"
		t.Run(fmt.Sprint(pad), func(t *testing.T) {
			check(t, newPasteReader(&chunkReader{chunks: []string{in}}),
				k+pasteStart+pasteEnd+"\x1b[A"+pasteStart+pasteEnd+"é"+pasteStart+pasteEnd+"z", "first\nline", "", "third")
		})
	}
	// A paste the terminal writes in two pieces, cut anywhere after its
	// start marker.
	in := "a" + pasteStart + "a line\r\nand more" + pasteEnd + "b"
	for cut := len("a" + pasteStart); cut < len(in); cut++ {
		t.Run(fmt.Sprint("cut", cut), func(t *testing.T) {
			check(t, newPasteReader(&chunkReader{chunks: []string{in[:cut], in[cut:]}}),
				"a"+pasteStart+pasteEnd+"b", "a line\r\nand more")
		})
	}
}

// keyLog is a model that writes down the keys it gets, the pastes taken
// from q, until ctrl+d.
type keyLog struct {
	q    *pasteQueue
	keys []string
}

func (l *keyLog) Init() tea.Cmd { return nil }
func (l *keyLog) View() string  { return "" }
func (l *keyLog) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return l, nil
	}
	k = takePaste(l.q, k)
	if k.Type == tea.KeyCtrlD {
		return l, tea.Quit
	}
	l.keys = append(l.keys, fmt.Sprintf("%v %q paste=%v alt=%v", k.Type, string(k.Runes), k.Paste, k.Alt))
	return l, nil
}

func runKeys(t *testing.T, in io.Reader, q *pasteQueue) []string {
	t.Helper()
	l := &keyLog{q: q}
	p := tea.NewProgram(l, tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	return l.keys
}

// The keys and pastes reach the model as Bubble Tea alone delivers them.
func TestPasteReaderKeysAsBubbleTeaGivesThem(t *testing.T) {
	body := strings.Repeat("pasted ünïcode line\twith a tab\r\n", 600) + "\x1b[31mred\x1b[0m"
	paste := pasteStart + body + pasteEnd
	// The terminal writes keys whole and a long paste in pieces, the last
	// one cutting the end marker.
	chunks := []string{"ab", "\x1b[A"}
	for len(paste) > 4096 {
		chunks, paste = append(chunks, paste[:4096]), paste[4096:]
	}
	chunks = append(chunks, paste[:len(paste)-3], paste[len(paste)-3:]+"cd",
		pasteStart+pasteEnd+"é", "\x1b[B", pasteStart+"x y"+pasteEnd, "\x04")
	plain := runKeys(t, &chunkReader{chunks: slices.Clone(chunks)}, nil)
	r := newPasteReader(&chunkReader{chunks: slices.Clone(chunks)})
	got := runKeys(t, r.input(), r.q)
	if len(plain) != 8 {
		t.Fatalf("Bubble Tea gave %d keys; want 8", len(plain))
	}
	for i := range plain {
		if i >= len(got) || got[i] != plain[i] {
			t.Fatalf("key %d through the paste reader: %.200q; Bubble Tea alone gives %.200q", i, got[min(i, len(got)-1)], plain[i])
		}
	}
	if len(got) != len(plain) {
		t.Fatalf("through the paste reader %d keys; want %d", len(got), len(plain))
	}
}

func TestQueuedPasteBecomesChip(t *testing.T) {
	m := newTestModel(t, newFake())
	m.pastes = &pasteQueue{}
	m.pastes.push(bigPaste(300))
	m = update(m, tea.KeyMsg{Type: tea.KeyRunes, Paste: true})
	if got := m.input.ta.value(); got != "[pasted 300 lines]" {
		t.Fatalf("input %q", got)
	}
}

// pasteModel runs a Model in a Bubble Tea program until a paste shows as
// a chip, the pastes taken from the terminal by r.
type pasteModel struct{ m Model }

func (p pasteModel) Init() tea.Cmd { return nil }
func (p pasteModel) View() string  { return p.m.View() }
func (p pasteModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := p.m.Update(msg)
	p.m = m.(Model)
	if len(p.m.input.pastes) > 0 {
		return p, tea.Quit
	}
	return p, cmd
}

// BenchmarkPaste2_5MB times a 2.5 MB bracketed paste from the terminal's
// bytes to the chip in the input, through Bubble Tea's input reader, in
// 4 KB writes as a terminal makes them. Goal: < 0.5 s.
func BenchmarkPaste2_5MB(b *testing.B) {
	body := strings.Repeat("a line of a log that someone pastes into the prompt, 80 chars\n", 2_500_000/62)
	data := []byte(pasteStart + body + pasteEnd)
	b.SetBytes(int64(len(data)))
	for range b.N {
		m := New(newFake(), Options{Workspace: "/work/project"})
		m = update(m, sizeMsg(120, 40))
		pr, pw := io.Pipe()
		r := newPasteReader(pr)
		m.pastes = r.q
		go func() {
			for d := data; len(d) > 0; {
				n, err := pw.Write(d[:min(4096, len(d))])
				if err != nil {
					return
				}
				d = d[n:]
			}
		}()
		p := tea.NewProgram(pasteModel{m}, tea.WithInput(r.input()), tea.WithOutput(io.Discard), tea.WithoutSignalHandler())
		final, err := p.Run()
		pw.Close()
		if err != nil {
			b.Fatal(err)
		}
		fm := final.(pasteModel).m
		if got := fm.input.ta.value(); !strings.HasPrefix(got, "[pasted 40322 lines]") {
			b.Fatalf("input %q", got)
		}
	}
}
