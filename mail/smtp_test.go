package mail

import "testing"

// TestNewSMTP: the URL's scheme picks STARTTLS or implicit TLS and the
// default port; what is not an SMTP URL is refused with a sentence.
func TestNewSMTP(t *testing.T) {
	for _, tc := range []struct {
		url      string
		addr     string
		implicit bool
		user     string
		err      string
	}{
		{"smtp://mail.example.com", "mail.example.com:587", false, "", ""},
		{"smtp://u:p%40ss@mail.example.com:2525", "mail.example.com:2525", false, "u", ""},
		{"smtps://mail.example.com", "mail.example.com:465", true, "", ""},
		{"smtp://[::1]:25", "[::1]:25", false, "", ""},
		{"http://mail.example.com", "", false, "", `mail: the SMTP URL's scheme is "http", not smtp or smtps`},
		{"smtp://", "", false, "", "mail: the SMTP URL names no host"},
		{"smtp://%zz", "", false, "", "mail: the SMTP URL is not a URL"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			s, err := NewSMTP(tc.url, nil)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.addr != tc.addr || s.implicit != tc.implicit || s.user != tc.user {
				t.Errorf("addr %s implicit %v user %q", s.addr, s.implicit, s.user)
			}
			if tc.user == "u" && s.password != "p@ss" {
				t.Errorf("password %q", s.password)
			}
		})
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:25": true, "[::1]:25": true, "localhost:25": true,
		"10.0.0.1:25": false, "mail.example.com:587": false} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%s) = %v", addr, got)
		}
	}
}
