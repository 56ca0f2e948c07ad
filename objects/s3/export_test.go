package s3

// SetListPageSize makes List fetch n keys per request, so that tests can
// fail a listing between pages.
func SetListPageSize(s *Store, n int) { s.listPage = n }
