package httpapi

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the API's Prometheus instruments. A nil *metrics records
// nothing, so the API runs the same with metrics off.
type metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec
	webhooks    *prometheus.CounterVec
}

// newMetrics registers the instruments with reg; nil reg means no metrics.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "tenantkit", Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests by method, route template and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "tenantkit", Subsystem: "http", Name: "request_duration_seconds",
			Help:    "HTTP request latency by method and route template.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"method", "route"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "tenantkit", Subsystem: "http", Name: "rate_limited_total",
			Help: "Requests refused by the rate limiter, by kind of key (cred or ip).",
		}, []string{"key"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "tenantkit", Subsystem: "webhook", Name: "events_total",
			Help: "Verified payment webhook events by type and outcome.",
		}, []string{"type", "outcome"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.rateLimited, m.webhooks} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// instrument counts and times every request by its route template, which
// later middleware records in the request's logFields (so paths with ids
// never explode the label space).
func (m *metrics) instrument(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec, ok := w.(*statusRecorder) // accessLog's, when it runs first (as under Wrap)
		if !ok {
			rec = &statusRecorder{ResponseWriter: w}
		}
		next.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		elapsed := time.Since(start).Seconds()
		f := logFieldsFrom(r.Context())
		if rm := f.metrics; rm != nil && rm.owner == m && rm.method == r.Method {
			rm.requests(status).Inc()
			rm.duration().Observe(elapsed)
			return
		}
		route := f.route
		if route == "" {
			route = "unmatched"
		}
		m.requests.WithLabelValues(r.Method, route, strconv.Itoa(status)).Inc()
		m.duration.WithLabelValues(r.Method, route).Observe(elapsed)
	})
}

// routeMetrics are one route's instruments, kept by the route's chain so
// that a request finds its own without looking them up by label values.
// Each instrument is made on the route's first request, as WithLabelValues
// makes it, so that /metrics lists the same series.
type routeMetrics struct {
	// owner holds the instruments; a route served under another API's
	// Wrap is counted by that API's instrument with its own lookup.
	owner *metrics
	// method is the route's; a request of another (HEAD on a GET route)
	// is counted by instrument's own lookup too.
	method string
	route  string // the route template, the route label
	// duration is the route's latency histogram.
	duration func() prometheus.Observer
	counters sync.Map // status (int) → prometheus.Counter
}

// route returns the instruments of the route template route, answering
// method; nil when m is (metrics off).
func (m *metrics) route(method, route string) *routeMetrics {
	if m == nil {
		return nil
	}
	return &routeMetrics{
		owner:    m,
		method:   method,
		route:    route,
		duration: sync.OnceValue(func() prometheus.Observer { return m.duration.WithLabelValues(method, route) }),
	}
}

// requests returns the route's request counter for status.
func (rm *routeMetrics) requests(status int) prometheus.Counter {
	if c, ok := rm.counters.Load(status); ok {
		return c.(prometheus.Counter)
	}
	c, _ := rm.counters.LoadOrStore(status, rm.owner.requests.WithLabelValues(rm.method, rm.route, strconv.Itoa(status)))
	return c.(prometheus.Counter)
}

// limited counts a request refused by the rate limiter.
func (m *metrics) limited(key string) {
	if m != nil {
		m.rateLimited.WithLabelValues(key).Inc()
	}
}

// webhookEvent counts a verified webhook event.
func (m *metrics) webhookEvent(eventType, outcome string) {
	if m != nil {
		m.webhooks.WithLabelValues(eventType, outcome).Inc()
	}
}
