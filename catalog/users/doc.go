// Package users finds the users of a config file that a run leaves out:
// every task under the inputs' roots that references it, compared by
// file identity, and the sources that cannot be read and might.
package users
