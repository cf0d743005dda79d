package testutil

// Hostile is one of every kind of character a name or label must not
// carry to a reader raw (internal/safetext): every C0 control, DEL, every
// C1 control, the line and paragraph separators, the bidirectional
// controls, a byte that is not UTF-8, and two whole escape sequences (a
// window title set by OSC, the screen cleared by CSI).
func Hostile() []string {
	var out []string
	for r := rune(0); r < 0x20; r++ {
		out = append(out, string(r))
	}
	out = append(out, "\x7f")
	for r := rune(0x80); r <= 0x9f; r++ {
		out = append(out, string(r))
	}
	for _, r := range []rune{0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069} {
		out = append(out, string(r))
	}
	return append(out, "\x9b", "\x1b]0;owned\x07", "\x1b[2J")
}
