package lexers

import (
	"regexp"

	"github.com/alecthomas/chroma/v2"
)

// setDNSAnalyser is chroma's dns.go init, run when the registry is built.
func setDNSAnalyser(reg *chroma.LexerRegistry) {
	zoneAnalyserRe := regexp.MustCompile(`(?m)^@\s+IN\s+SOA\s+`)
	reg.Get("dns").SetAnalyser(func(text string) float32 {
		if zoneAnalyserRe.FindString(text) != "" {
			return 1.0
		}
		return 0.0
	})
}
