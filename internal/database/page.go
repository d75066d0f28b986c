package database

// Page turns the rows of a keyset-paginated list, fetched with a limit of
// limit+1 (the extra row says whether more follow), into a page of at
// most limit items, converting each row with item.
func Page[R, T any](rows []R, limit int, item func(R) (T, error)) (page []T, more bool, err error) {
	if more = len(rows) > limit; more {
		rows = rows[:limit]
	}
	page = make([]T, len(rows))
	for i, r := range rows {
		if page[i], err = item(r); err != nil {
			return nil, false, err
		}
	}
	return page, more, nil
}
