package bigquery_test

import _ "github.com/ripple-data/ripple/internal/golden"
