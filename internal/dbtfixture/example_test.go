package dbtfixture_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/ripple-data/ripple/internal/dbtfixture"
)

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	p := dbtfixture.New(nil)
	p.Table("customers", []string{"id INTEGER", "name VARCHAR", "age INTEGER"},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}},
		dbtfixture.Rows{{1, "Alice", 30}, {2, "Bob", 25}, {3, "Charlie", 35}}).
		Tests(dbtfixture.Unique("id"), dbtfixture.NotNull("id"))
	p.Model("adults", dbtfixture.View,
		"select * from {{ ref('customers') }} where age >= 18",
		"select * from {{ ref('customers') }} where age >= 21")
	b, err := p.Build(ctx, dir) // or p.MustBuild(ctx) in a test: dbtfixture.New(t)
	if err != nil {
		log.Fatal(err)
	}

	proj, err := b.Load(ctx) // dbt.LoadProject on dir/target-base and dir/target
	if err != nil {
		log.Fatal(err)
	}
	adults, _ := proj.Current.Manifest.Node("model.ripple_test.adults")
	fmt.Println(adults.CompiledCode)

	db, err := b.OpenDB()
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, "select count(*) from "+b.Relation(dbtfixture.Current, "adults")).Scan(&n); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "adults in", b.Relation(dbtfixture.Current, "adults"))
	// Output:
	// select * from "ripple"."current"."customers" where age >= 21
	// 3 adults in "ripple"."current"."adults"
}
