module github.com/loci-dev/loci/clients/go

go 1.19
