package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/webhook"
)

// configureWebhook serves the payment webhook when secrets are configured,
// verified with the configured scheme. Without a secret nothing could be
// verified, so the endpoint answers 501 and the log says why.
func (a *app) configureWebhook(c *httpapi.Config) error {
	switch a.cfg.WebhookScheme {
	case "", webhook.SchemeStandard, webhook.SchemeStripe:
	default:
		return failure(nil, "--webhook-scheme %q: want %s or %s", a.cfg.WebhookScheme, webhook.SchemeStandard, webhook.SchemeStripe)
	}
	if len(a.cfg.WebhookSecrets) == 0 {
		a.log.Warn().Msg("payment webhook off (501): no webhook secret configured (TENANTKIT_WEBHOOK_SECRET)")
		return nil
	}
	v, err := webhook.NewVerifier(a.cfg.WebhookScheme, a.cfg.WebhookSecrets)
	if err != nil {
		return err
	}
	c.WebhookVerifier = v
	return nil
}

// runWebhook runs `server webhook sign`: it signs an event file as the
// payment provider would and prints the headers to send it with, so that
// an operator can deliver a test event with curl:
//
//	server webhook sign --secret whsec_… --file event.json > headers.txt
//	curl -H @headers.txt -H 'Content-Type: application/json' --data-binary @event.json …
//
// It needs no database.
func runWebhook(args []string, stdout io.Writer) error {
	sub, args, err := subcommand("webhook", args, stdout)
	if err != nil {
		return err
	}
	if sub != "sign" {
		return unknownCommand("webhook", sub)
	}
	var (
		cfg                         config
		secret, file, msgID, scheme string
		unix                        int64
	)
	fs := flag.NewFlagSet("webhook sign", flag.ContinueOnError)
	commonFlags(fs, &cfg)
	// No default shown for the secret: -h output must not print it.
	fs.StringVar(&secret, "secret", "", "signing secret whsec_…; default the first of TENANTKIT_WEBHOOK_SECRET")
	fs.StringVar(&file, "file", "", "the event's JSON body, sent as is; - reads standard input")
	fs.StringVar(&msgID, "id", "", "webhook-id, the message id; default a new msg_… id (standard scheme)")
	fs.Int64Var(&unix, "timestamp", 0, "signing time in Unix seconds; default now")
	fs.StringVar(&scheme, "scheme", env("WEBHOOK_SCHEME", webhook.SchemeStandard), "standard or stripe (TENANTKIT_WEBHOOK_SCHEME)")
	positional, err := parse("webhook sign", fs, args, stdout)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError("webhook sign", "unexpected argument %q", positional[0])
	}
	if secret == "" {
		if secrets := list(env("WEBHOOK_SECRET", "")); len(secrets) > 0 {
			secret = secrets[0]
		}
	}
	switch {
	case file == "":
		return usageError("webhook sign", "missing --file: the event to sign")
	case secret == "":
		return usageError("webhook sign", "missing --secret (or TENANTKIT_WEBHOOK_SECRET)")
	}
	body, err := readEventFile(file)
	if err != nil {
		return err
	}
	at := time.Now()
	if unix != 0 {
		at = time.Unix(unix, 0)
	}
	switch scheme {
	case webhook.SchemeStandard, "":
		if msgID == "" {
			msgID = id.New("msg")
		}
		h, err := webhook.Sign(secret, msgID, at, body)
		if err != nil {
			return err
		}
		return output(stdout, cfg.JSON, h, fmt.Sprintf("%s: %s\n%s: %s\n%s: %s",
			webhook.HeaderID, h.ID, webhook.HeaderTimestamp, h.Timestamp, webhook.HeaderSignature, h.Signature))
	case webhook.SchemeStripe:
		sig := webhook.SignStripe(secret, at, body)
		return output(stdout, cfg.JSON, map[string]string{"stripe-signature": sig}, webhook.HeaderStripeSignature+": "+sig)
	}
	return usageError("webhook sign", "--scheme %q: want %s or %s", scheme, webhook.SchemeStandard, webhook.SchemeStripe)
}

// readEventFile reads the body to sign, refusing what the webhook would
// refuse for its size anyway.
func readEventFile(name string) ([]byte, error) {
	var (
		body []byte
		err  error
	)
	if name == "-" {
		body, err = io.ReadAll(io.LimitReader(os.Stdin, webhook.MaxPayloadBytes+1))
	} else {
		body, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, failure(err, "cannot read the event %s", name)
	}
	if len(body) > webhook.MaxPayloadBytes {
		return nil, failure(nil, "event %s is larger than the webhook's %d-byte limit", name, webhook.MaxPayloadBytes)
	}
	return body, nil
}
