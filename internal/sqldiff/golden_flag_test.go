package sqldiff

import _ "github.com/ripple-data/ripple/internal/golden"
