package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/storbench/storbench/internal/cluster"
)

func newTokenCommand(st *State) *cobra.Command {
	return &cobra.Command{
		Use:   "token",
		Short: "Print a new random token for --token-file (agents, controllers, serve)",
		Long: `Prints a new token: 32 random bytes in base64, one line, as
` + cluster.MakeTokenCommand + ` makes one. Agents, controllers and serve
refuse a token shorter than ` + fmt.Sprint(cluster.MinTokenChars) + ` characters (16 random bytes' worth).
Write it to a file only you can read, and give that file to every agent and to
the controller with --token-file.`,
		Example: `  (umask 077; storbench token > ~/.storbench-token)   # the same file on every host
  storbench agent --listen :7761 --token-file ~/.storbench-token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(st.Stdout, cluster.NewToken())
			return err
		},
	}
}
