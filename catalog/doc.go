// Package catalog is the model of a Flow catalog and its loading: Load
// reads sources with their imports, config files and sealed (sops)
// configs into materializations whose every node knows its file, line,
// column and JSON pointer. Finding the inputs is catalog/input's, stored
// specs catalog/livespecs's, the users of a config file catalog/users's.
package catalog
