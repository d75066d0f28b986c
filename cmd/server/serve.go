package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bunrouter"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/httpapi/redislimit"
)

// version is reported by GET /api/health; set with -ldflags "-X main.version=…".
var version = "dev"

// server is a running tenantkit HTTP server.
type server struct {
	app  *app
	http *http.Server
	ln   net.Listener
	done chan error
	// stop ends the background jobs; jobsDone is closed once they have.
	stop     context.CancelFunc
	jobsDone chan struct{}
	// delivering is set when this replica works the outbound webhook
	// deliveries (--webhook-workers above 0).
	delivering bool
}

// startServer opens the app, composes the API on bunrouter and starts
// listening on cfg.Addr (":0" picks a free port; see URL).
func startServer(ctx context.Context, cfg config, logOut io.Writer) (*server, error) {
	a, err := openApp(ctx, cfg, logOut, cfg.Migrate)
	if err != nil {
		return nil, err
	}
	s, err := a.serve(ctx)
	if err != nil {
		_ = a.close()
		return nil, err
	}
	return s, nil
}

// serve composes the API of an opened app and starts listening on its
// configured address. On an error the caller still owns (and closes) a.
func (a *app) serve(ctx context.Context) (*server, error) {
	cfg := a.cfg
	handler, err := a.handler(ctx)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, failure(err, "cannot listen on %s; the log line above says why", cfg.Addr)
	}
	// The queue runs until shutdown stops it, gracefully: not on a context
	// whose end would cancel the attempts in flight.
	if cfg.WebhookWorkers > 0 {
		if err := a.kit.Deliveries.Start(context.WithoutCancel(ctx)); err != nil {
			_ = ln.Close()
			return nil, err
		}
	}
	s := &server{
		app: a, ln: ln, done: make(chan error, 1), delivering: cfg.WebhookWorkers > 0,
		http: &http.Server{
			Handler:           limitInFlight(cfg.MaxInFlight, handler),
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      60 * time.Second,
			IdleTimeout:       2 * time.Minute,
			MaxHeaderBytes:    64 << 10,
		},
	}
	go func() {
		err := s.http.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		s.done <- err
	}()
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop, s.jobsDone = stop, make(chan struct{})
	go func() {
		defer close(s.jobsDone)
		a.runScheduler(bg)
	}()
	a.log.Info().Str("addr", ln.Addr().String()).Str("database", dialectOf(cfg.DatabaseURL)).Msg("tenantkit serving")
	return s, nil
}

// URL is the base URL the server answers on.
func (s *server) URL() string { return listenURL(s.ln.Addr().(*net.TCPAddr)) }

// PublicURL is where the server's sign-in links point: --public-url when
// set, else URL.
func (s *server) PublicURL() string {
	if s.app.cfg.PublicURL != "" {
		return s.app.cfg.PublicURL
	}
	return s.URL()
}

// shutdown stops the background jobs, the webhook deliveries and
// accepting requests, drains the requests in flight, the jobs' current tick
// and the delivery attempts in flight (cancelled when ctx ends first, to
// be retried at once by another replica), then closes the database.
func (s *server) shutdown(ctx context.Context) error {
	s.stop()
	stopped := make(chan error, 1)
	go func() {
		if s.delivering {
			stopped <- s.app.kit.Deliveries.Stop(ctx)
			return
		}
		stopped <- nil
	}()
	err := s.http.Shutdown(ctx)
	select {
	case <-s.jobsDone:
	case <-ctx.Done():
	}
	if derr := <-stopped; err == nil && derr != nil {
		err = fmt.Errorf("stop webhook deliveries: %w", derr)
	}
	if serr := <-s.done; err == nil {
		err = serr
	}
	if cerr := s.app.close(); err == nil {
		err = cerr
	}
	return err
}

// handler builds the API and composes it on bunrouter from the route table.
func (a *app) handler(ctx context.Context) (http.Handler, error) {
	cfg := a.cfg
	apiCfg := a.kit.HTTPConfig()
	apiCfg.JWT = httpapi.JWTConfig{Secret: []byte(cfg.JWTSecret), JWKSURL: cfg.JWTJWKSURL, Issuer: cfg.JWTIssuer, Audience: cfg.JWTAudience}
	apiCfg.CSRFSecret = []byte(cfg.CSRFSecret)
	var sessionSecret []byte
	if cfg.Portal {
		var err error
		if sessionSecret, err = a.sessionSecret(ctx); err != nil {
			return nil, err
		}
		if cfg.JWTSecret == "" && cfg.JWTJWKSURL == "" {
			// The API accepts the portal's session cookie (and derives its
			// CSRF key from the same secret, so both take the same tokens).
			apiCfg.JWT.Secret = sessionSecret
		}
	}
	if cfg.PlatformGraceDays >= 0 {
		grace := time.Duration(cfg.PlatformGraceDays) * 24 * time.Hour
		apiCfg.PastDueGrace = &grace
	}
	apiCfg.PublicURL = a.publicURL()
	apiCfg.MaxBodyBytes = cfg.MaxBodyBytes
	apiCfg.TrustedProxies = cfg.TrustedProxies
	apiCfg.Metrics = a.metrics
	apiCfg.Logger = a.log
	apiCfg.Version = version
	if err := a.configureWebhook(&apiCfg); err != nil {
		return nil, err
	}
	if cfg.RedisURL != "" {
		opts, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return nil, failure(err, "--redis-url: want redis://host:port or rediss://…")
		}
		apiCfg.RateLimiter = redislimit.New(redis.NewClient(opts), cfg.RateLimit, cfg.RateBurst)
	} else {
		apiCfg.RateLimiter = httpapi.NewMemoryRateLimiter(cfg.RateLimit, cfg.RateBurst)
	}
	api, err := httpapi.New(ctx, apiCfg)
	if err != nil {
		return nil, err
	}
	router := bunrouter.New(
		bunrouter.WithNotFoundHandler(bunrouter.HTTPHandler(api.Unmatched())),
		bunrouter.WithMethodNotAllowedHandler(bunrouter.HTTPHandler(api.Unmatched())),
	)
	for _, rt := range api.Routes() {
		path := bunPath(rt.Pattern)
		router.Handle(rt.Method, path, adapt(rt.Handler))
	}
	if cfg.Portal {
		if err := a.mountPortal(ctx, router, api, sessionSecret); err != nil {
			return nil, err
		}
	}
	router.GET("/metrics", bunrouter.HTTPHandler(promhttp.HandlerFor(a.metrics, promhttp.HandlerOpts{})))
	return api.Wrap(router), nil
}

// bunPath turns a net/http pattern ("/api/tickets/{id}") into bunrouter's
// syntax ("/api/tickets/:id").
func bunPath(pattern string) string {
	parts := strings.Split(pattern, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			parts[i] = ":" + strings.TrimSuffix(strings.TrimPrefix(p, "{"), "}")
		}
	}
	return strings.Join(parts, "/")
}

// adapt serves a net/http handler on a bunrouter route, passing the path
// parameters on as r.PathValue.
func adapt(h http.Handler) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		r := req.Request
		for name, value := range req.Params().Map() {
			r.SetPathValue(name, value)
		}
		h.ServeHTTP(w, r)
		return nil
	}
}

// runScheduler runs the App's Scheduler every --scheduler-interval until
// ctx ends (never when it is 0), logging what each job did: contract
// changes due at a period boundary, the invoices' collection schedule,
// expired Idempotency-Keys. It runs on every replica at once, which is
// safe: each item a job handles is claimed by a database constraint in
// the transaction that handles it, so exactly one replica does it.
func (a *app) runScheduler(ctx context.Context) {
	if a.cfg.SchedulerInterval <= 0 {
		return
	}
	a.kit.Scheduler.Run(ctx, a.cfg.SchedulerInterval, func(r tenantkit.JobResult) {
		switch {
		case r.Err != nil && ctx.Err() == nil:
			a.log.Warn().Err(r.Err).Str("job", r.Job).Int("done", r.Done).Msg("background job failed")
		case r.Done > 0:
			a.log.Info().Str("job", r.Job).Int("done", r.Done).Msg("background job done")
		}
	})
}

func dialectOf(url string) string {
	if strings.HasPrefix(url, "postgres") {
		return "postgres"
	}
	return "sqlite"
}
