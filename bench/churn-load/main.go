// Command churn-load posts one body to a URL from W workers for a while, each request on a new TCP
// connection (keep-alive off), as a client that opens a connection per call does, and prints
// requests/s, p50 and p99 latency (connect included) and non-2xx answers or failed connections.
//
//	churn-load -url URL -body FILE -seconds 10 -workers 32
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "", "the URL to POST to")
	bodyPath := flag.String("body", "", "a file with the request body (empty: GET)")
	seconds := flag.Float64("seconds", 10, "how long to run")
	workers := flag.Int("workers", 32, "concurrent requests")
	flag.Parse()
	var body []byte
	if *bodyPath != "" {
		b, err := os.ReadFile(*bodyPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "churn-load:", err)
			os.Exit(1)
		}
		body = b
	}
	transport := &http.Transport{DisableKeepAlives: true, MaxIdleConnsPerHost: -1}
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	deadline := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	var mu sync.Mutex
	var latencies []time.Duration
	failures := 0
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			for time.Now().Before(deadline) {
				method := http.MethodGet
				if body != nil {
					method = http.MethodPost
				}
				req, err := http.NewRequest(method, *url, bytes.NewReader(body))
				if err != nil {
					bad++
					continue
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer bench")
				t := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					bad++
					continue
				}
				drain(resp.Body)
				if resp.StatusCode/100 != 2 {
					bad++
					continue
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			failures += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(latencies, func(a, b int) bool { return latencies[a] < latencies[b] })
	pick := func(q float64) float64 {
		if len(latencies) == 0 {
			return 0
		}
		return float64(latencies[int(q*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	// One line for the script: requests/s p50 p99 failures.
	fmt.Printf("%.0f %.2fms %.2fms %d\n", float64(len(latencies))/elapsed.Seconds(), pick(0.5), pick(0.99), failures)
}

// drain reads an answer to its end, so that the connection ends as a client's would.
func drain(body interface {
	Read([]byte) (int, error)
	Close() error
}) {
	buf := make([]byte, 4096)
	for {
		if _, err := body.Read(buf); err != nil {
			break
		}
	}
	body.Close()
}
