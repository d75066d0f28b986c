package outbound

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// SecretPrefix begins every endpoint secret: "whsec_" and the standard
// base64 of SecretBytes random bytes, as Standard Webhooks libraries take
// it.
const SecretPrefix = "whsec_"

// SecretBytes is the length of an endpoint's signing key.
const SecretBytes = 32

// KeyBytes is the length of the server key that encrypts endpoint secrets
// at rest (AES-256).
const KeyBytes = 32

// Sealer encrypts endpoint secrets at rest with AES-256-GCM under the
// server's key. Each sealed secret is bound to its endpoint's id: a
// ciphertext copied to another row does not open.
type Sealer struct {
	aead cipher.AEAD
}

// NewSealer returns the Sealer of a KeyBytes-byte key (generate one with
// `openssl rand -base64 32`).
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != KeyBytes {
		return nil, fmt.Errorf("outbound: secret key must be %d bytes, not %d", KeyBytes, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("outbound: secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("outbound: secret key: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// seal encrypts secret for endpointID: base64 of nonce and ciphertext.
func (s *Sealer) seal(endpointID, secret string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("outbound: seal secret: %w", err)
	}
	out := s.aead.Seal(nonce, nonce, []byte(secret), []byte(endpointID))
	return base64.StdEncoding.EncodeToString(out), nil
}

// errSealed is a sealed secret that does not open: another key, another
// row, or corrupt.
var errSealed = errors.New("outbound: sealed secret does not open with this key")

// open decrypts what seal made for endpointID.
func (s *Sealer) open(endpointID, sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	n := s.aead.NonceSize()
	if err != nil || len(raw) < n {
		return "", errSealed
	}
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(endpointID))
	if err != nil {
		return "", errSealed
	}
	return string(plain), nil
}

// newSecret returns a fresh endpoint secret, "whsec_…".
func newSecret() (string, error) {
	key := make([]byte, SecretBytes)
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("outbound: new secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// secretKey returns the signing key of a secret made by newSecret.
func secretKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return nil, fmt.Errorf("outbound: decode secret: %w", err)
	}
	return key, nil
}
