// A minimal Go client for the loci HTTP API (for the boss agent): search code, remember and
// recall. Run: LOCI_URL=http://127.0.0.1:7411 LOCI_TOKEN=… go run loci.go "what is the boss weak to"
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

type SearchRequest struct {
	Query string   `json:"query"`
	TopK  int      `json:"topK,omitempty"`
	Paths []string `json:"paths,omitempty"`
}

type SearchResponse struct {
	Results []struct {
		Path      string  `json:"path"`
		StartLine int     `json:"startLine"`
		EndLine   int     `json:"endLine"`
		Score     float64 `json:"score"`
		Text      string  `json:"text"`
	} `json:"results"`
	Warnings []string `json:"warnings"`
}

type RememberRequest struct {
	Namespace string `json:"namespace"`
	Text      string `json:"text"`
	Kind      string `json:"kind,omitempty"`
}

type RecallRequest struct {
	Query      string   `json:"query"`
	Namespaces []string `json:"namespaces,omitempty"`
	TopK       int      `json:"topK,omitempty"`
}

type RecallResponse struct {
	Results []struct {
		ID        string  `json:"id"`
		Namespace string  `json:"namespace"`
		Text      string  `json:"text"`
		Score     float64 `json:"score"`
	} `json:"results"`
}

type APIError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Hint    string `json:"hint"`
	} `json:"error"`
}

func call(path string, body any, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest("POST", os.Getenv("LOCI_URL")+path, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token := os.Getenv("LOCI_TOKEN"); token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		var apiErr APIError
		_ = json.NewDecoder(res.Body).Decode(&apiErr)
		return fmt.Errorf("loci %s: %s (%s)", apiErr.Error.Code, apiErr.Error.Message, apiErr.Error.Hint)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(res.Body).Decode(out)
}

func main() {
	question := "what is the boss weak to"
	if len(os.Args) > 1 {
		question = os.Args[1]
	}
	if err := call("/v1/memory/records", RememberRequest{Namespace: "agents/boss/knowledge", Text: "The boss is weak to ice"}, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var recalled RecallResponse
	if err := call("/v1/memory/recall", RecallRequest{Query: question, Namespaces: []string{"agents/boss/knowledge"}, TopK: 2}, &recalled); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, hit := range recalled.Results {
		fmt.Printf("memory %.3f %s\n", hit.Score, hit.Text)
	}
	var found SearchResponse
	if err := call("/v1/search", SearchRequest{Query: question, TopK: 3}, &found); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, result := range found.Results {
		fmt.Printf("code %s:%d-%d %.3f\n", result.Path, result.StartLine, result.EndLine, result.Score)
	}
}
