package web_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkListMessagesGzip is BenchmarkListMessages for a browser, which
// accepts gzip: the same 20 messages, gzipped by the replyWriter.
func BenchmarkListMessagesGzip(b *testing.B) {
	h, token := benchAPI(b)
	plain := httptest.NewRequest("GET", "/api/messages", nil)
	plain.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, plain)
	b.ReportAllocs()
	b.ResetTimer()
	var size int
	b.RunParallel(func(pb *testing.PB) {
		req := httptest.NewRequest("GET", "/api/messages", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
		for pb.Next() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "gzip" {
				b.Fatalf("%d %v", rec.Code, rec.Header())
			}
			size = rec.Body.Len()
		}
	})
	b.ReportMetric(float64(rec.Body.Len()), "plain-bytes/reply")
	b.ReportMetric(float64(size), "gzip-bytes/reply")
}
