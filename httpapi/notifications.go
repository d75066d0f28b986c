package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The tenant group's notification endpoints: the tenant's inbox and its
// read state.

var _ Notifications = (*tenancy.Notifications)(nil)

// Notifications lists a tenant's notifications and marks them read.
// *tenancy.Notifications implements it.
type Notifications interface {
	List(ctx context.Context, tenantID string, f tenancy.NotificationFilter) ([]tenancy.Notification, bool, error)
	UnreadCount(ctx context.Context, tenantID string) (int64, error)
	MarkRead(ctx context.Context, tenantID, notificationID string) (tenancy.Notification, error)
	MarkAllRead(ctx context.Context, tenantID, upTo string) (int64, error)
}

// notificationEndpoints are the tenant group's rows of the route table
// for notifications.
func (a *API) notificationEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/tenant/notifications", Group: GroupTenant, Tenant: true,
			Permission: tenancy.PermNotificationsRead, Query: ListQuery("unread"), Handle: a.listNotifications},
		{Method: "POST", Path: "/api/tenant/notifications/{id}/read", Group: GroupTenant, Tenant: true,
			Permission: tenancy.PermNotificationsRead, Handle: a.markNotificationRead},
		{Method: "POST", Path: "/api/tenant/notifications/read-all", Group: GroupTenant, Tenant: true,
			Permission: tenancy.PermNotificationsRead, Handle: a.markAllNotificationsRead},
	}
}

// notificationList is the answer to GET /api/tenant/notifications: a page
// of the list envelope plus the tenant's unread count.
type notificationList struct {
	ListResponse[tenancy.Notification]
	// UnreadCount is how many of the tenant's notifications are unread,
	// on every page and whatever the filter: what an inbox badge shows.
	UnreadCount int64 `json:"unread_count"`
}

// listNotifications answers GET /api/tenant/notifications, newest first;
// ?unread=true keeps the unread ones.
func (a *API) listNotifications(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	unread := false
	if s := r.URL.Query().Get("unread"); s != "" {
		if unread, err = strconv.ParseBool(s); err != nil {
			return InvalidRequest("unread must be true or false",
				FieldError{Field: "unread", Code: "invalid", Message: "must be true or false"})
		}
	}
	m, _ := MembershipFrom(r.Context())
	ns, more, err := a.cfg.Services.Notifications.List(r.Context(), m.TenantID,
		tenancy.NotificationFilter{UnreadOnly: unread, Limit: limit, Before: before})
	if err != nil {
		return err
	}
	count, err := a.cfg.Services.Notifications.UnreadCount(r.Context(), m.TenantID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, notificationList{
		ListResponse: NewListResponse(ns, more, func(n tenancy.Notification) string { return n.ID }),
		UnreadCount:  count,
	})
	return nil
}

// markNotificationRead answers POST /api/tenant/notifications/{id}/read:
// the notification, read. Read state is the tenant's: once one member
// reads it, it is read for all. Reading it again keeps the first read
// time and is still 200; another tenant's notification is 404.
func (a *API) markNotificationRead(w http.ResponseWriter, r *http.Request) error {
	notificationID, err := PathID(r, id.Notification, "notification")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	n, err := a.cfg.Services.Notifications.MarkRead(r.Context(), m.TenantID, notificationID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, n)
	return nil
}

// readAllResponse is the answer to POST /api/tenant/notifications/read-all.
type readAllResponse struct {
	// Updated is how many notifications this request marked read.
	Updated int64 `json:"updated"`
}

// markAllNotificationsRead answers POST
// /api/tenant/notifications/read-all: every unread notification of the
// tenant (up to up_to) marked read, and how many that was. Repeating it
// marks nothing more ({"updated":0}).
func (a *API) markAllNotificationsRead(w http.ResponseWriter, r *http.Request) error {
	var in tenancy.ReadAll
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	n, err := a.cfg.Services.Notifications.MarkAllRead(r.Context(), m.TenantID, in.UpTo)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, readAllResponse{Updated: n})
	return nil
}
