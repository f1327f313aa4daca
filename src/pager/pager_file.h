/*-------------------------------------------------------------------------
 *
 * pager_file.h
 *	  The file table (pager_file.c): slots of open files and handles.
 *
 * The public half (creating, opening, dropping files, user words, file
 * statistics) is in pager.h, the calls for recovery in pager_redo.h.
 * Included by the layers that may call the file table: the meta pages'
 * layer, the page store, checkpoints, the copy functions, the sweep, the
 * redo-facing calls and the io worker.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_PAGER_FILE_H
#define ARTRIE_PAGER_FILE_H

#include "pager/pager_meta.h"

extern PagerFileSlot *pager_slot_hold(PagerFile *file);

/*
 * The slot behind a handle, held until the end of the transaction;
 * reopens the file if its slot was closed or reused (pager_slot_hold).
 * Each pin of a page asks: a handle held already is answered here.
 */
static inline PagerFileSlot *
pager_slot(PagerFile *file)
{
	if (likely(file->held))
		return &pager_shared->files[file->slot];
	return pager_slot_hold(file);
}

extern void pager_file_path(const ArtFileId *id, char *path);
extern bool pager_file_damaged(const ArtFileId *id);
extern bool pager_file_loaded(const ArtFileId *id);
extern void pager_file_forget(const ArtFileId *id);
extern void pager_files_walk(void (*visit) (const ArtFileId *id, void *arg),
							 void *arg);
extern PagerFile *pager_open_warranted(const ArtFileId *id,
									   const char *relname,
									   const PagerWarrant *warrant);
extern int	pager_idle_slots(int *slots, int max);
extern bool pager_close_slot(int slot);
extern bool pager_slot_claim(int slot);
extern void pager_slot_free(int slot);
extern void pager_slots_closed(int closed, int busy);
extern void pager_inuse_unmark(PagerFileSlot *fs);
extern void pager_backend_ready(void);
extern bool pager_parse_oid(const char *s, const char **end, Oid *value);
extern PagerFile *pager_open_adopted(const ArtFileId *id,
									 const PagerAdoptSource *source,
									 const char *relname);
extern void pager_restamp_closed_files(void (*unchanged) (const ArtFileId *id,
														  XLogRecPtr since));

#endif							/* ARTRIE_PAGER_FILE_H */
