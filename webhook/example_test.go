package webhook_test

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tenantkit/tenantkit/webhook"
)

// A provider signs an event; the receiver verifies it before reading it.
func ExampleNewVerifier() {
	body := []byte(`{"test": 2432232314}`)
	signedAt := time.Unix(1614265330, 0)
	h, err := webhook.Sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", signedAt, body)
	if err != nil {
		panic(err)
	}
	fmt.Println(h.Signature)

	header := http.Header{}
	header.Set(webhook.HeaderID, h.ID)
	header.Set(webhook.HeaderTimestamp, h.Timestamp)
	header.Set(webhook.HeaderSignature, h.Signature)

	// The receiver's clock is a minute later: within the tolerance.
	v, err := webhook.NewVerifier(webhook.SchemeStandard, []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		webhook.WithVerifierClock(func() time.Time { return signedAt.Add(time.Minute) }))
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Verify(header, body))
	err = v.Verify(header, []byte(`{"test": 1}`))
	fmt.Println(errors.Is(err, webhook.ErrSignature))
	// Output:
	// v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
	// <nil>
	// true
}
