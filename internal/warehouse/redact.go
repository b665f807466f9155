package warehouse

import "regexp"

var (
	secretKV = regexp.MustCompile(`(?i)\b(password|passwd|pwd|sslpassword|private_key_passphrase|passphrase|token|secret)(\s*[=:]\s*)('[^']*'|"[^"]*"|[^\s&;,)]+)`)
	userInfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^/:@\s]*):[^@\s]*@`)
)

// Redact masks secret-shaped spans of a driver or connection message:
// password=..., pwd=..., token: ..., and the password of a URL's user info.
// It goes by the shape of the text, never by the secret's value, so it does
// not garble a message where the password also occurs as a word (a role
// named like its password), and it cannot tell anyone whether a string they
// slipped into a message (a guess in a SQL error) is the password.
func Redact(msg string) string {
	msg = userInfo.ReplaceAllString(msg, "$1:***@")
	return secretKV.ReplaceAllString(msg, "$1$2***")
}
