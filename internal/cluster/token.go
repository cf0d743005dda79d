package cluster

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"unicode/utf8"
)

// MinTokenChars is the shortest token an agent, a controller or serve
// takes: 16 random bytes' worth in base64. A shorter one is guessed by
// anyone who can reach the port and try.
const MinTokenChars = 22

// MakeTokenCommand is how the help and the errors tell a user to make a
// token (storbench token prints one too).
const MakeTokenCommand = "head -c 32 /dev/urandom | base64"

// CheckToken refuses a token shorter than MinTokenChars; where names
// where it came from (--token-file F). It says the token's length, never
// the token. It looks at the token's value only, however it was read.
func CheckToken(where, token string) error {
	if n := utf8.RuneCountInString(token); n < MinTokenChars {
		return fmt.Errorf("%s: the token is %d characters, too short to be hard to guess: give at least %d (16 random bytes in base64); make one with: %s > FILE; chmod 600 FILE (or storbench token > FILE)",
			where, n, MinTokenChars, MakeTokenCommand)
	}
	return nil
}

// NewToken returns a fresh token: 32 random bytes in base64, as
// MakeTokenCommand makes one.
func NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}
