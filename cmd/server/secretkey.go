package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// defaultSecretKeyFile is where serve keeps a generated secret key when
// TENANTKIT_SECRET_KEY is unset: in the working directory.
const defaultSecretKeyFile = "tenantkit-secret.key"

// outboundOptions are tenantkit.New's options for outbound webhooks: the
// secret key that encrypts endpoint secrets, the operator's allow list
// and the retry schedule (--webhook-retry-base).
// The key is TENANTKIT_SECRET_KEY (base64 of 32 bytes: `openssl rand
// -base64 32`), else the key file, created with a random key (mode 0600)
// when absent. Replicas must share one key: set the variable, or give
// them the same file. Only serve passes a key file; other commands run
// without a key.
func outboundOptions(cfg config, log zerolog.Logger) ([]tenantkit.Option, error) {
	opts := []tenantkit.Option{tenantkit.WithWebhookAllow(cfg.WebhookAllowHosts...)}
	if cfg.WebhookRetryBase > 0 {
		opts = append(opts, tenantkit.WithOutbound(outbound.WithSchedule(outbound.Schedule(cfg.WebhookRetryBase)...)))
	}
	switch {
	case cfg.SecretKey != "":
		key, err := decodeKey(cfg.SecretKey)
		if err != nil {
			return nil, failure(nil, "TENANTKIT_SECRET_KEY %v", err)
		}
		opts = append(opts, tenantkit.WithSecretKey(key))
	case cfg.SecretKeyFile != "":
		key, created, err := loadOrCreateKey(cfg.SecretKeyFile)
		if err != nil {
			reason := err
			var pe *fs.PathError
			if errors.As(err, &pe) {
				reason = pe.Err // "permission denied", without the path again
			}
			return nil, failure(err, "secret key file %s: %v", cfg.SecretKeyFile, reason)
		}
		if created {
			log.Warn().Str("path", cfg.SecretKeyFile).Msg("secret key file created; keep it, or set TENANTKIT_SECRET_KEY on every replica")
		}
		opts = append(opts, tenantkit.WithSecretKey(key))
	}
	return opts, nil
}

// decodeKey decodes a base64 key of outbound.KeyBytes bytes. The key
// itself never goes into an error.
func decodeKey(s string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, errors.New("must be standard base64 (openssl rand -base64 32)")
	}
	if len(key) != outbound.KeyBytes {
		return nil, fmt.Errorf("must decode to %d bytes, not %d (openssl rand -base64 32)", outbound.KeyBytes, len(key))
	}
	return key, nil
}

// loadOrCreateKey reads the key file at path, or creates it with a random
// key, readable by its owner only.
func loadOrCreateKey(path string) (key []byte, created bool, err error) {
	raw, err := os.ReadFile(path)
	if err == nil {
		key, err := decodeKey(string(raw))
		return key, false, err
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another replica made it first
		return loadOrCreateKey(path)
	}
	if err != nil {
		return nil, false, err
	}
	key = make([]byte, outbound.KeyBytes)
	if _, err := rand.Read(key); err != nil {
		_ = f.Close()
		return nil, false, err
	}
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		_ = f.Close()
		return nil, false, err
	}
	return key, true, f.Close()
}
