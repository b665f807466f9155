package demo

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ripple-data/ripple/internal/dbtfixture"
)

// Sizes of the generated raw data.
const (
	NumCustomers = 2000
	NumOrders    = 10000
	// customersWithOrders: customers above this id never ordered.
	customersWithOrders = 1800
	seed1, seed2        = 20240101, 42
)

// weighted is a value drawn with a relative weight.
type weighted struct {
	name   string
	weight int
}

func pick(r *rand.Rand, items []weighted) string {
	total := 0
	for _, it := range items {
		total += it.weight
	}
	n := r.IntN(total)
	for _, it := range items {
		if n < it.weight {
			return it.name
		}
		n -= it.weight
	}
	return items[len(items)-1].name
}

// rawData generates the three seeds deterministically (PCG with a fixed
// seed: math/rand/v2 specifies the algorithm, so the data is the same on
// every platform and Go version).
func rawData() (customers, orders, payments dbtfixture.CSV) {
	firstNames := []string{"Michael", "Shawn", "Kathleen", "Jimmy", "Katherine", "Sarah", "Martin", "Frank", "Jennifer", "Henry",
		"Fred", "Amy", "Kathleen", "Steve", "Teresa", "Amanda", "Kimberly", "Johnny", "Virginia", "Anna",
		"Willie", "Sean", "Mildred", "David", "Victor", "Aaron", "Howard", "Gary", "Craig", "Lisa",
		"Carol", "Julia", "Nancy", "Andrea", "Norma", "Adam", "Doris", "Rose", "Emily", "Harold"}
	statuses := []weighted{{"completed", 60}, {"shipped", 15}, {"placed", 12}, {"return_pending", 5}, {"returned", 8}}
	methods := []weighted{{"credit_card", 45}, {"bank_transfer", 20}, {"coupon", 20}, {"gift_card", 15}}
	r := rand.New(rand.NewPCG(seed1, seed2))
	var c, o, p strings.Builder
	c.WriteString("id,first_name,last_name\n")
	for id := 1; id <= NumCustomers; id++ {
		fmt.Fprintf(&c, "%d,%s,%c.\n", id, firstNames[r.IntN(len(firstNames))], 'A'+r.IntN(26))
	}
	o.WriteString("id,user_id,order_date,status\n")
	p.WriteString("id,order_id,payment_method,amount\n")
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	payID := 0
	for id := 1; id <= NumOrders; id++ {
		date := start.AddDate(0, 0, r.IntN(366)).Format("2006-01-02")
		fmt.Fprintf(&o, "%d,%d,%s,%s\n", id, 1+r.IntN(customersWithOrders), date, pick(r, statuses))
		n := 1
		if r.IntN(5) == 0 {
			n = 2
		}
		for range n {
			payID++
			var cents int
			if r.IntN(10) < 6 {
				cents = (1 + r.IntN(60)) * 100 // whole dollars
			} else {
				cents = 100 + r.IntN(5900) // dollars and cents
			}
			fmt.Fprintf(&p, "%d,%d,%s,%d\n", payID, id, pick(r, methods), cents)
		}
	}
	return dbtfixture.CSV(c.String()), dbtfixture.CSV(o.String()), dbtfixture.CSV(p.String())
}
