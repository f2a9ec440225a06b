// The Go boss agent's knowledge flow over loci: load-or-create its per-agent knowledge store
// from a markdown file, then answer each question with the sections at least 0.5 similar, top 2
// (the agent's SIMILARITY_LIMIT and SIMILARITY_MAX_RESULTS).
//
//	go run ./cmd/boss-agent http://127.0.0.1:7420 TOKEN boss KNOWLEDGE.md "question" ...
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/loci-dev/loci/clients/go/loci"
)

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: boss-agent BASE_URL TOKEN AGENT FILE.md [question ...]")
		os.Exit(2)
	}
	client := loci.New(os.Args[1], os.Args[2])
	agent, file, questions := os.Args[3], os.Args[4], os.Args[5:]
	ctx := context.Background()
	store, err := client.LoadKnowledge(ctx, agent, file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	answers := map[string][]loci.Section{}
	for _, question := range questions {
		found, err := client.SearchKnowledge(ctx, agent, question, 0.5, 2)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		answers[question] = found.Results
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"store": store, "answers": answers})
}
