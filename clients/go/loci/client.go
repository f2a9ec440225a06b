// Package loci is a small typed client for loci's HTTP API (standard library only).
package loci

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client talks to `loci serve`, sending the bearer token when set.
type Client struct {
	BaseURL string
	Token   string
	Root    string // served root name; empty: the first one
	HTTP    *http.Client
}

// New returns a client with a 30 s timeout.
func New(baseURL, token string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Token: token, HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// Error is an error answer from loci: its stable code, message and hint.
type Error struct {
	Status  int
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Hint) }

// KnowledgeStore is what loading a knowledge store answers.
type KnowledgeStore struct {
	Agent     string `json:"agent"`
	Namespace string `json:"namespace"`
	Source    string `json:"source"`
	Sections  int    `json:"sections"`
	Rebuilt   bool   `json:"rebuilt"`
}

// Section is one knowledge section found by a search.
type Section struct {
	ID    string  `json:"id"`
	Text  string  `json:"text"`
	Score float64 `json:"score"`
}

// KnowledgeSearch is what a knowledge search answers.
type KnowledgeSearch struct {
	Agent    string    `json:"agent"`
	Results  []Section `json:"results"`
	Rebuilt  bool      `json:"rebuilt"`
	Warnings []string  `json:"warnings"`
}

// LoadKnowledge loads (or creates) an agent's knowledge store from a markdown file inside the
// served root; loci rebuilds it when the file changes.
func (c *Client) LoadKnowledge(ctx context.Context, agent, path string) (*KnowledgeStore, error) {
	var out KnowledgeStore
	err := c.call(ctx, http.MethodPost, "/v1/knowledge/"+url.PathEscape(agent)+"/load", map[string]any{"path": path}, &out)
	return &out, err
}

// SearchKnowledge returns the sections at least `threshold` similar to the query, at most topK,
// ordered by cosine similarity (the Go agent's order).
func (c *Client) SearchKnowledge(ctx context.Context, agent, query string, threshold float64, topK int) (*KnowledgeSearch, error) {
	var out KnowledgeSearch
	body := map[string]any{"query": query, "threshold": threshold, "topK": topK, "mode": "cosine"}
	err := c.call(ctx, http.MethodPost, "/v1/knowledge/"+url.PathEscape(agent)+"/search", body, &out)
	return &out, err
}

func (c *Client) call(ctx context.Context, method, path string, body map[string]any, out any) error {
	if c.Root != "" && body != nil {
		body["root"] = c.Root
	}
	var reader *bytes.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(data)
	} else {
		reader = bytes.NewReader(nil)
	}
	request, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, reader)
	if err != nil {
		return err
	}
	request.Header.Set("content-type", "application/json")
	if c.Token != "" {
		request.Header.Set("authorization", "Bearer "+c.Token)
	}
	response, err := c.HTTP.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	if response.StatusCode >= 400 {
		var failure struct {
			Error Error `json:"error"`
		}
		_ = json.NewDecoder(response.Body).Decode(&failure)
		failure.Error.Status = response.StatusCode
		return &failure.Error
	}
	return json.NewDecoder(response.Body).Decode(out)
}
