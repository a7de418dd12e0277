package fcmemu

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// systemCAFiles are where Linux distributions keep their CA bundle (the list Go itself reads).
var systemCAFiles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

var caVariables = []string{"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"}

// writeCABundle writes the CAs already trusted (the files named by SSL_CERT_FILE,
// REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, else the system's bundle) followed by the emulator's CA.
func (e *Emulator) writeCABundle(path string) error {
	var sources []string
	seen := map[string]bool{}
	for _, name := range caVariables {
		if f := os.Getenv(name); f != "" && !seen[f] {
			if st, err := os.Stat(f); err == nil && !st.IsDir() {
				sources = append(sources, f)
				seen[f] = true
			}
		}
	}
	if len(sources) == 0 {
		for _, f := range systemCAFiles {
			if st, err := os.Stat(f); err == nil && !st.IsDir() {
				sources = append(sources, f)
				break
			}
		}
	}
	var b bytes.Buffer
	for _, f := range sources {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "# from %s\n%s\n", f, bytes.TrimRight(data, "\n"))
	}
	fmt.Fprintf(&b, "# fcm-emu's local CA\n%s\n", bytes.TrimRight(e.caPEM, "\n"))
	return os.WriteFile(path, b.Bytes(), 0o600)
}

// excludesGoogle reports whether a NO_PROXY entry would keep Google's hosts from the proxy.
func excludesGoogle(entry string) bool {
	entry = strings.ToLower(strings.TrimSpace(entry))
	if entry == "*" {
		return true
	}
	if h, _, ok := strings.Cut(entry, ":"); ok && strings.Count(entry, ":") == 1 {
		entry = h
	}
	entry = strings.TrimLeft(entry, "*.")
	if entry == "" {
		return false
	}
	for _, h := range append(GoogleAPIHosts, "fcm-xmpp.googleapis.com", "gcm.googleapis.com") {
		if h == entry || strings.HasSuffix(h, "."+entry) {
			return true
		}
	}
	return false
}

func noProxyValue(current string) string {
	var entries []string
	for _, e := range strings.Split(current, ",") {
		if e = strings.TrimSpace(e); e != "" && !excludesGoogle(e) {
			entries = append(entries, e)
		}
	}
	for _, loop := range []string{"127.0.0.1", "localhost", "::1"} {
		found := false
		for _, e := range entries {
			found = found || e == loop
		}
		if !found {
			entries = append(entries, loop)
		}
	}
	return strings.Join(entries, ",")
}

// KeyFile writes the project's service-account key file (its token_uri points at the emulator)
// into the emulator's private working directory and returns its path: the value for
// GOOGLE_APPLICATION_CREDENTIALS or option.WithCredentialsFile.
func (p *Project) KeyFile(ctx context.Context) (string, error) {
	if p.emu == nil {
		return "", fmt.Errorf("fcm-emu: Project.KeyFile needs a project obtained from an Emulator")
	}
	dir, err := p.emu.workDir()
	if err != nil {
		return "", err
	}
	key, err := p.ServiceAccount(ctx)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, p.id+"-service-account.json")
	return path, os.WriteFile(path, key, 0o600)
}

// Env returns the environment that points an unmodified SDK in a child process at the emulator,
// for this project, as `fcm-emu env` does:
//
//   - GOOGLE_APPLICATION_CREDENTIALS (a key file whose token_uri is the emulator),
//     GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT, FIREBASE_CONFIG;
//   - HTTPS_PROXY and https_proxy (the emulator's proxy, which joins CONNECTs to Google's hosts
//     to the emulator), NO_PROXY and no_proxy (your entries but those excluding Google's hosts,
//     plus loopback), NODE_USE_ENV_PROXY=1; only when the proxy is on (it is for Start);
//   - SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE (the CAs already trusted, then the
//     emulator's), NODE_EXTRA_CA_CERTS (the emulator's CA);
//   - FCM_EMU_CONTROL_API, FCM_EMU_URL, FCM_EMU_HTTPS_URL, FCM_EMU_PROXY, FCM_EMU_CA,
//     FCM_EMU_PROJECT, and FCM_EMU_CONTROL_TOKEN when the emulator asks for one.
//
// Go children need no code change: net/http takes HTTPS_PROXY and crypto/x509 SSL_CERT_FILE.
// Use Environ to make an exec.Cmd's Env from it. The files live in the emulator's private
// working directory until Close.
func (p *Project) Env(ctx context.Context) (map[string]string, error) {
	e := p.emu
	if e == nil {
		return nil, fmt.Errorf("fcm-emu: Project.Env needs a project obtained from an Emulator")
	}
	dir, err := e.workDir()
	if err != nil {
		return nil, err
	}
	keyFile, err := p.KeyFile(ctx)
	if err != nil {
		return nil, err
	}
	config, _ := json.Marshal(map[string]string{"projectId": p.id})
	env := map[string]string{
		"GOOGLE_APPLICATION_CREDENTIALS": keyFile,
		"GOOGLE_CLOUD_PROJECT":           p.id,
		"GCLOUD_PROJECT":                 p.id,
		"FIREBASE_CONFIG":                string(config),
		"FCM_EMU_CONTROL_API":            e.ControlURL(),
		"FCM_EMU_URL":                    e.HTTPURL(),
		"FCM_EMU_PROJECT":                p.id,
	}
	if e.client.token != "" {
		env[ControlTokenEnv] = e.client.token
	}
	if e.caPEM != nil {
		ca := filepath.Join(dir, "fcm-emu-ca.pem")
		if err := os.WriteFile(ca, e.caPEM, 0o600); err != nil {
			return nil, err
		}
		bundle := filepath.Join(dir, "ca-bundle.pem")
		if err := e.writeCABundle(bundle); err != nil {
			return nil, err
		}
		for _, name := range caVariables {
			env[name] = bundle
		}
		env["NODE_EXTRA_CA_CERTS"] = ca
		env["FCM_EMU_CA"] = ca
	}
	if u := e.HTTPSURL(); u != "" {
		env["FCM_EMU_HTTPS_URL"] = u
	}
	if proxy := e.ProxyURL(); proxy != "" {
		env["HTTPS_PROXY"], env["https_proxy"], env["FCM_EMU_PROXY"] = proxy, proxy, proxy
		env["NODE_USE_ENV_PROXY"] = "1"
		current := os.Getenv("NO_PROXY")
		if current == "" {
			current = os.Getenv("no_proxy")
		}
		env["NO_PROXY"] = noProxyValue(current)
		env["no_proxy"] = env["NO_PROXY"]
	}
	return env, nil
}

// Environ returns this process's environment with env applied on top, sorted: the value for an
// exec.Cmd's Env.
func Environ(env map[string]string) []string {
	merged := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			merged[k] = v
		}
	}
	for k, v := range env {
		merged[k] = v
	}
	out := make([]string, 0, len(merged))
	for k, v := range merged {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
