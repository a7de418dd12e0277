package fcmemu

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// GoogleAPIHosts are the hosts whose HTTPS (port 443) the emulator stands in for; its TLS
// certificate covers them.
var GoogleAPIHosts = []string{
	"fcm.googleapis.com", "iid.googleapis.com", "oauth2.googleapis.com", "www.googleapis.com",
	"iamcredentials.googleapis.com", "accounts.google.com",
}

// CertPool returns the system's roots plus the emulator's CA.
func (e *Emulator) CertPool() *x509.CertPool {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	pool.AppendCertsFromPEM(e.caPEM)
	return pool
}

// TLSConfig returns a TLS configuration that trusts the system's roots and the emulator's CA.
// Nothing outside this process is changed: no trust store, no environment variable.
func (e *Emulator) TLSConfig() *tls.Config {
	return &tls.Config{RootCAs: e.CertPool(), MinVersion: tls.VersionTLS12}
}

// RoutesTo reports whether a connection to addr (host:port) is sent to the emulator by
// DialContext: Google's API hosts on 443.
func (e *Emulator) RoutesTo(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || (port != "443" && port != "https") {
		return false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, h := range GoogleAPIHosts {
		if h == host {
			return true
		}
	}
	return false
}

// DialContext dials addr, except that Google's API hosts on 443 are dialled to the emulator's TLS
// port. The TLS server name stays Google's, which the emulator's certificate covers.
func (e *Emulator) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if e.RoutesTo(addr) {
		target := e.TLSAddr()
		if target == "" {
			return nil, fmt.Errorf("fcm-emu: %s would go to the emulator, but its TLS port is off (tlsPort)", addr)
		}
		return d.DialContext(ctx, "tcp", target)
	}
	return d.DialContext(ctx, network, addr)
}

// routeTransport is the emulator's shared transport.
type routeTransport struct{ *http.Transport }

// Transport returns the emulator's *http.Transport: Google's API hosts go to the emulator
// (DialContext), TLS trusts the system roots and the emulator's CA (TLSConfig), HTTP/2 is
// negotiated as with Google. Other hosts are reached as usual, through the environment's proxy
// if any; routed hosts never go through a proxy. It is shared: its connections are closed by
// Emulator.Close.
func (e *Emulator) Transport() *http.Transport {
	e.transportOnce.Do(func() {
		e.transport = &routeTransport{&http.Transport{
			Proxy: func(r *http.Request) (*url.URL, error) {
				if e.RoutesTo(canonicalAddr(r)) {
					return nil, nil
				}
				return http.ProxyFromEnvironment(r)
			},
			DialContext:           e.DialContext,
			TLSClientConfig:       e.TLSConfig(),
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		}}
	})
	return e.transport.Transport
}

// HTTPClient returns an *http.Client on Transport: requests to https://fcm.googleapis.com/…,
// iid, oauth2 and the other Google hosts reach the emulator, in this process, with no change of
// URL. It adds no credentials: give it to an SDK as its base client, or use
// Project.HTTPClient for one that also authorizes as the project's service account. With
// Google's Go clients: option.WithHTTPClient(emu.HTTPClient()).
func (e *Emulator) HTTPClient() *http.Client {
	return &http.Client{Transport: e.Transport()}
}

func canonicalAddr(r *http.Request) string {
	host, port := r.URL.Hostname(), r.URL.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[r.URL.Scheme]
	}
	return net.JoinHostPort(host, port)
}

// HTTPClient returns an *http.Client that reaches the emulator as Emulator.HTTPClient does and
// authorizes every request to Google's hosts as the project's service account ("Authorization:
// Bearer …", a token minted by the control API and renewed before it expires). A request that
// carries its own Authorization header keeps it.
//
// Google's generated clients and the Admin SDK take it with option.WithHTTPClient; note that
// WithHTTPClient takes precedence over credential options.
func (p *Project) HTTPClient() *http.Client {
	if p.emu == nil {
		panic("fcm-emu: Project.HTTPClient needs a project obtained from an Emulator")
	}
	return &http.Client{Transport: &bearerTransport{project: p, base: p.emu.Transport()}}
}

type bearerTransport struct {
	project *Project
	base    http.RoundTripper

	mu      sync.Mutex
	token   string
	expires time.Time
}

func (b *bearerTransport) bearer(ctx context.Context) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.token != "" && time.Until(b.expires) > time.Minute {
		return b.token, nil
	}
	t, err := b.project.CreateAccessToken(ctx)
	if err != nil {
		return "", err
	}
	b.token, b.expires = t.AccessToken, time.Now().Add(time.Duration(t.ExpiresIn)*time.Second)
	return b.token, nil
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Authorization") != "" || !b.project.emu.RoutesTo(canonicalAddr(r)) {
		return b.base.RoundTrip(r)
	}
	token, err := b.bearer(r.Context())
	if err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	r2 := r.Clone(r.Context())
	r2.Header.Set("Authorization", "Bearer "+token)
	return b.base.RoundTrip(r2)
}
