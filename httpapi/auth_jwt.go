package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// SessionCookie is the cookie that carries a session JWT for browsers.
const SessionCookie = "tenantkit_session"

// maxTokenLen bounds the JWTs the edge will parse.
const maxTokenLen = 8 << 10

// JWTConfig says how to verify JWTs from the external identity provider.
// Exactly one of Secret (HS256) and JWKSURL (the provider's published keys,
// RS256/ES256/EdDSA…) is needed.
type JWTConfig struct {
	// Secret verifies HS256 tokens.
	Secret []byte
	// JWKSURL is fetched at start and refreshed in the background.
	JWKSURL string
	// Issuer, when set, must equal the "iss" claim.
	Issuer string
	// Audience, when set, must be in the "aud" claim.
	Audience string
	// Leeway tolerates clock skew on exp and nbf; default 30s.
	Leeway time.Duration
}

// Claims are the JWT claims tenantkit reads: "sub" or "email" name the
// user, "scope" (space separated) gives scopes, "sid" the session.
type Claims struct {
	jwt.RegisteredClaims
	Email string `json:"email,omitempty"`
	Scope string `json:"scope,omitempty"`
	SID   string `json:"sid,omitempty"`
}

// UnmarshalJSON decodes the claims, refusing an "exp", "nbf" or "iat" that
// is not a JSON number: RFC 7519 defines them as NumericDate, a number of
// seconds, and the JWT library would also take a numeric string such as
// "2099999999". The claims of a correctly signed token are input like a
// request body (DecodeJSON): a string holding NUL or invalid UTF-8, which
// encoding/json would turn into U+FFFD or pass on to a database that
// refuses it, is refused too; and a claim of the wrong JSON type fails to
// decode.
func (c *Claims) UnmarshalJSON(b []byte) error {
	var dates struct {
		Exp json.RawMessage `json:"exp"`
		Nbf json.RawMessage `json:"nbf"`
		Iat json.RawMessage `json:"iat"`
	}
	if err := json.Unmarshal(b, &dates); err != nil {
		return err
	}
	for name, raw := range map[string]json.RawMessage{"exp": dates.Exp, "nbf": dates.Nbf, "iat": dates.Iat} {
		if raw != nil && !isJSONNumber(raw) {
			return fmt.Errorf("claim %q is not a NumericDate (a JSON number)", name)
		}
	}
	if _, code := findBadString(b); code != "" {
		return fmt.Errorf("a claim is not text: %s", code)
	}
	type plain Claims // the same fields, without this method
	return json.Unmarshal(b, (*plain)(c))
}

// The longest claims tenantkit takes, in characters: "sub", "sid" and
// "email" name a user or a session and reach queries, so they are held to
// the bounds of identifiers elsewhere (an email address has at most 254);
// "iss", each "aud" and "scope" are only compared, and get more room.
const (
	maxIDClaimLen    = 255
	maxEmailClaimLen = 254
	maxClaimLen      = 1024
)

// check refuses claims longer than the bounds above.
func (c *Claims) check() error {
	for _, cl := range []struct {
		name, value string
		max         int
	}{
		{"sub", c.Subject, maxIDClaimLen}, {"sid", c.SID, maxIDClaimLen}, {"email", c.Email, maxEmailClaimLen},
		{"iss", c.Issuer, maxClaimLen}, {"scope", c.Scope, maxClaimLen},
	} {
		if utf8.RuneCountInString(cl.value) > cl.max {
			return fmt.Errorf("claim %q is longer than %d characters", cl.name, cl.max)
		}
	}
	for _, aud := range c.Audience {
		if utf8.RuneCountInString(aud) > maxClaimLen {
			return fmt.Errorf("claim \"aud\" has a value longer than %d characters", maxClaimLen)
		}
	}
	return nil
}

// isJSONNumber reports whether raw, a valid JSON value, is a number.
func isJSONNumber(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// JWTVerifier checks signatures and registered claims of JWTs.
type JWTVerifier struct {
	keyfunc jwt.Keyfunc
	parser  *jwt.Parser
}

// NewJWTVerifier builds a verifier from cfg; with a JWKS URL it fetches the
// key set once before returning (ctx bounds the background refresh).
func NewJWTVerifier(ctx context.Context, cfg JWTConfig) (*JWTVerifier, error) {
	leeway := cfg.Leeway
	if leeway == 0 {
		leeway = 30 * time.Second
	}
	opts := []jwt.ParserOption{jwt.WithExpirationRequired(), jwt.WithLeeway(leeway)}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v := &JWTVerifier{}
	switch {
	case len(cfg.Secret) > 0 && cfg.JWKSURL != "":
		return nil, errors.New("httpapi: jwt: set either a secret or a JWKS URL, not both")
	case len(cfg.Secret) > 0:
		if len(cfg.Secret) < 32 {
			return nil, errors.New("httpapi: jwt: the HS256 secret must be at least 32 bytes")
		}
		secret := cfg.Secret
		v.keyfunc = func(*jwt.Token) (any, error) { return secret, nil }
		opts = append(opts, jwt.WithValidMethods([]string{"HS256"}))
	case cfg.JWKSURL != "":
		k, err := keyfunc.NewDefaultCtx(ctx, []string{cfg.JWKSURL})
		if err != nil {
			return nil, fmt.Errorf("httpapi: jwt: load JWKS %s: %w", cfg.JWKSURL, err)
		}
		v.keyfunc = k.Keyfunc
		opts = append(opts, jwt.WithValidMethods([]string{"RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"}))
	default:
		return nil, errors.New("httpapi: jwt: no secret or JWKS URL configured")
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

// Verify parses token and checks its signature, algorithm, exp, nbf,
// issuer and audience when configured, and that its claims are text
// within bounds (UnmarshalJSON, check). A token that fails any check is an
// error matching tenancy.ErrUnauthenticated.
func (v *JWTVerifier) Verify(token string) (*Claims, error) {
	if len(token) > maxTokenLen {
		return nil, fmt.Errorf("httpapi: jwt: token too long: %w", tenancy.ErrUnauthenticated)
	}
	var c Claims
	if _, err := v.parser.ParseWithClaims(token, &c, v.keyfunc); err != nil {
		return nil, fmt.Errorf("httpapi: jwt: %w: %w", tenancy.ErrUnauthenticated, err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("httpapi: jwt: %w: %w", tenancy.ErrUnauthenticated, err)
	}
	return &c, nil
}

var _ Sessions = (*tenancy.Sessions)(nil)

// Sessions checks that a session is live. *tenancy.Sessions implements
// it.
type Sessions interface {
	// Check returns nil when the session is live and the user's; an
	// error matching tenancy.ErrUnauthenticated when it ended, expired or
	// is another's.
	Check(ctx context.Context, sessionID, userID string) error
}

// principal maps verified claims to a tenantkit user: by "email" when
// present, else "sub" must be a tenantkit user id. Users are not created
// on the fly; an unknown user is unauthenticated. A "sid" that names a
// session of tenantkit's (tenancy.LooksLikeSessionID) must be live when
// sessions is set: a session that ended (sign-out, removal from the
// tenant, an operator) is unauthenticated although its token verifies.
func principalFromClaims(ctx context.Context, users Directory, sessions Sessions, c *Claims, method AuthMethod) (*Principal, error) {
	var (
		user tenancy.User
		err  error
	)
	if c.Email != "" {
		user, err = users.UserByEmail(ctx, c.Email)
	} else {
		user, err = users.User(ctx, c.Subject)
	}
	if errors.Is(err, tenancy.ErrNotFound) {
		return nil, fmt.Errorf("httpapi: jwt: unknown user: %w", tenancy.ErrUnauthenticated)
	}
	if err != nil {
		return nil, err
	}
	p := &Principal{User: user, Method: method}
	if sessions != nil && tenancy.LooksLikeSessionID(c.SID) {
		if err := sessions.Check(ctx, c.SID, user.ID); err != nil {
			return nil, fmt.Errorf("httpapi: jwt: %w", err)
		}
		p.SessionID = c.SID
	}
	for _, s := range strings.Fields(c.Scope) {
		if sc := tenancy.Scope(s); sc.Valid() {
			p.Scopes = append(p.Scopes, sc)
		}
	}
	p.Credential = tenancy.Credential{Key: "user:" + user.ID, UserID: user.ID}
	if c.SID != "" {
		p.Credential.Key = "sid:" + c.SID
	}
	return p, nil
}

// JWTAuthenticator accepts "Authorization: Bearer <jwt>".
type JWTAuthenticator struct {
	Verifier *JWTVerifier
	// Directory finds the token's user (a *tenancy.Directory).
	Directory Directory
	// Sessions, when set, refuses a token naming a session that is no
	// longer live (principalFromClaims).
	Sessions Sessions
}

// Authenticate implements Authenticator.
func (a JWTAuthenticator) Authenticate(r *http.Request) (*Principal, error) {
	token, ok := bearerToken(r)
	if !ok || tenancy.LooksLikeKey(token) || operator.LooksLikeKey(token) {
		return nil, ErrNoCredential
	}
	c, err := a.Verifier.Verify(token)
	if err != nil {
		return nil, err
	}
	return principalFromClaims(r.Context(), a.Directory, a.Sessions, c, AuthJWT)
}

// SessionAuthenticator accepts the tenantkit_session cookie carrying a JWT.
// The cookie is an ambient credential: unsafe requests also need a CSRF token.
type SessionAuthenticator struct {
	Verifier *JWTVerifier
	// Directory finds the token's user (a *tenancy.Directory).
	Directory Directory
	// Sessions, when set, refuses a cookie naming a session that is no
	// longer live (principalFromClaims).
	Sessions Sessions
}

// Authenticate implements Authenticator.
func (a SessionAuthenticator) Authenticate(r *http.Request) (*Principal, error) {
	cookie, err := r.Cookie(SessionCookie)
	if err != nil || cookie.Value == "" {
		return nil, ErrNoCredential
	}
	c, err := a.Verifier.Verify(cookie.Value)
	if err != nil {
		return nil, err
	}
	p, err := principalFromClaims(r.Context(), a.Directory, a.Sessions, c, AuthSession)
	if err != nil {
		return nil, err
	}
	p.SessionBinding = sessionBinding(c, cookie.Value)
	return p, nil
}

// sessionBinding names the session a CSRF token belongs to: the "sid"
// claim, else a hash of the cookie itself.
func sessionBinding(c *Claims, raw string) string {
	if c != nil && c.SID != "" {
		return "sid:" + c.SID
	}
	sum := sha256.Sum256([]byte(raw))
	return "tok:" + hex.EncodeToString(sum[:16])
}
