package render

import (
	"fmt"
	"io"

	"github.com/ripple-data/ripple/internal/checks"
	"github.com/ripple-data/ripple/internal/ops"
)

func checkRenderers() map[string]Func {
	return map[string]Func{
		"list_checks":   typed(listChecks),
		"create_check":  typed(createCheck),
		"run_check":     typed(runCheck),
		"approve_check": typed(checkState("")),
		"reorder_check": typed(checkState("moved")),
		"delete_check": typed(func(w io.Writer, out *ops.DeleteResult, o Options) error {
			_, err := fmt.Fprintf(w, "deleted check %s (its runs stay in the state file)\n", out.CheckID)
			return err
		}),
	}
}

func listChecks(w io.Writer, out *checks.ListResult, o Options) error {
	if out.Total == 0 {
		fmt.Fprintln(w, "No checks yet: create one with create-check, or save the suggested checks of impact-analysis.")
		return nil
	}
	fmt.Fprintf(w, "%s: %d approved, %d outdated\n", plural(out.Total, "check", "checks"), out.Approved, out.Outdated)
	t := Table{Header: []string{"", "#", "check", "type", "last run", "verdict", "id"}}
	shown := min(len(out.Checks), o.limit())
	var errs []string
	for i, c := range out.Checks[:shown] {
		mark := ""
		if c.IsChecked {
			mark = "✓"
		}
		status := string(c.LastRunStatus)
		if status == "" {
			status = "never run"
		}
		if c.IsOutdated {
			status += " (outdated)"
		}
		verdict := "—"
		if c.Mismatched != nil {
			verdict = "same"
			if *c.Mismatched {
				verdict = "differs"
			}
		}
		if c.LastRunError != "" {
			errs = append(errs, c.Name+": "+c.LastRunError)
		}
		t.Add(mark, fmt.Sprint(i), c.Name, c.Type, status, verdict, c.ID)
	}
	if err := t.Write(w, o.width()); err != nil {
		return err
	}
	More(w, shown, len(out.Checks))
	fmt.Fprintln(w, "(✓ approved; verdict: the last run found base and current the same or different)")
	for _, e := range errs {
		fmt.Fprintf(w, "error: %s\n", e)
	}
	return nil
}

func createCheck(w io.Writer, out *ops.CreateCheckResult, o Options) error {
	if out.Created {
		fmt.Fprintf(w, "created check %s\n", out.CheckID)
	} else {
		fmt.Fprintf(w, "check %s already existed with this type and params (renamed if a name was given)\n", out.CheckID)
	}
	switch {
	case out.RunError != "":
		fmt.Fprintf(w, "error: its run %s failed, so it is not approved: %s\n", out.RunID, out.RunError)
	case out.RunExecuted:
		fmt.Fprintf(w, "ran it (run %s) and approved it\n", out.RunID)
	case out.RunID != "":
		fmt.Fprintf(w, "run %s did not finish; the check is not approved\n", out.RunID)
	default:
		fmt.Fprintln(w, "not run (run it with run-check)")
	}
	return nil
}

func runCheck(w io.Writer, out *checks.Run, o Options) error {
	name := out.Name
	if name == "" {
		name = out.Type
	}
	fmt.Fprintf(w, "run %s of check %s (%s): %s", out.ID, out.CheckID, name, out.Status)
	if out.FinishedAt != nil {
		fmt.Fprintf(w, " in %s", out.FinishedAt.Sub(out.StartedAt).Round(1e6))
	}
	fmt.Fprintln(w)
	if out.Error != "" {
		fmt.Fprintf(w, "error: %s\n", out.Error)
	}
	if out.Status == checks.StatusFinished {
		fmt.Fprintf(w, "approved; the %s result with --json\n", out.Type)
	}
	return nil
}

func checkState(verb string) func(w io.Writer, out *ops.CheckResult, o Options) error {
	return func(w io.Writer, out *ops.CheckResult, o Options) error {
		c := out.Check
		state := "not approved"
		if c.IsChecked {
			state = "approved"
		}
		if verb == "" { // approve_check: the new state is the news
			verb = "approved"
			if !c.IsChecked {
				verb, state = "unapproved", "to review again"
			} else {
				state = "its result reviewed"
			}
		}
		_, err := fmt.Fprintf(w, "check %s (%s, %s) %s: %s\n", c.ID, c.Name, c.Type, verb, state)
		return err
	}
}
