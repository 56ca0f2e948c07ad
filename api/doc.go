// Package api is the control-socket protocol between the wsfs server and its
// clients (the CLI verbs and the wsfs run worker): JSON over HTTP on a unix
// socket, with the server handlers and a Go client.
package api
