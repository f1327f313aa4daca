/*-------------------------------------------------------------------------
 *
 * wal_internal.h
 *	  The WAL layer's shared state and the calls between its files.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ARTRIE_WAL_INTERNAL_H
#define ARTRIE_WAL_INTERNAL_H

#include "wal/wal.h"

#include "access/xlogreader.h"
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/lwlock.h"
#include "storage/spin.h"

/* The files wal_shared lists as not yet usable by queries. */
#define WAL_UNUSABLE_MAX	64

typedef struct WalShared
{
	slock_t		mutex;			/* the two flags below */
	bool		recovering;		/* a process is running wal_recover */
	bool		recovered;		/* files are up to date with the WAL */
	bool		from_backup;	/* this start restores a base backup */
	ConditionVariable recovered_cv; /* broadcast when either flag changes */
	LWLock	   *control_lock;	/* the control file and the slot */
	uint64		control_seq;	/* under control_lock */
	bool		slot_ok;		/* under control_lock */
	char		slot_problem[128];
	pg_atomic_uint64 records;
	pg_atomic_uint64 bytes;
	pg_atomic_uint64 replayed;
	pg_atomic_uint64 failed;

	/*
	 * Files a hot standby's queries may not use yet (wal_check_usable): redo
	 * holds their entry records back, or is rebuilding them from an image.
	 * Written by the startup process only; more than fit sets all_unusable.
	 */
	slock_t		unusable_mutex;
	int			nunusable;
	bool		all_unusable;
	ArtFileId	unusable[WAL_UNUSABLE_MAX];
} WalShared;

extern WalShared *wal_shared;

/* wal_insert.c */
extern void wal_count_logged(Size bytes);
extern void wal_log_unchanged(const ArtFileId *file, XLogRecPtr since);
extern void wal_log_ckpt_image(const PagerImage *image);
extern void wal_log_image_begin(const ArtFileId *file, XLogRecPtr since);

/* wal_redo.c */
extern void wal_rmgr_register(void);
extern void wal_apply(uint8 kind, const char *data, Size len, XLogRecPtr lsn,
					  bool batch);
extern void wal_batch_flush(void);
extern void wal_batch_report(void);
extern void wal_redo_forget(void);

/* wal_hold.c */
typedef void (*WalHoldApply) (uint8 kind, const char *data, Size len,
							  XLogRecPtr lsn, void *arg);
extern bool wal_hold_active(const ArtFileId *id);
extern void wal_hold_begin(const ArtFileId *id, XLogRecPtr lsn);
extern void wal_hold_add(const ArtFileId *id, uint8 kind, const char *data,
						 Size len, XLogRecPtr lsn);
extern void wal_hold_add_image(const ArtFileId *id, bool first, uint8 kind,
							   const char *data, Size len, XLogRecPtr lsn);
extern uint64 wal_hold_apply_images(const ArtFileId *id, WalHoldApply apply,
									void *arg);
extern XLogRecPtr wal_hold_oldest(void);
extern uint64 wal_hold_release(const ArtFileId *id, WalHoldApply apply,
							   void *arg);
extern int	wal_hold_files(ArtFileId *ids);
extern int	wal_hold_count(void);

/* wal_sort.c */
typedef struct WalSortKey
{
	uint64		head;			/* 8 bytes of the entry, big-endian */
	uint32		root;			/* the trie's */
	uint32		pos;			/* the record's offset in its batch */
} WalSortKey;
extern void wal_sort_keys(WalSortKey *keys, size_t n);

/* wal_runs.c */
typedef struct WalRun WalRun;
extern WalRun *wal_run_create(void);
extern void wal_run_write(WalRun *run, uint8 kind, uint32 root,
						  XLogRecPtr lsn, const uint8 *entry, uint32 len);
extern void wal_run_finish(WalRun *run);
extern bool wal_run_next(WalRun *run, uint8 *kind, uint32 *root,
						 XLogRecPtr *lsn, const uint8 **entry, uint32 *len);
extern void wal_run_close(WalRun *run);

/* wal_conflict.c */
extern void wal_conflict_vacuum(const ArtFileId *file);

/* wal_control.c */
extern void wal_control_load(XLogRecPtr redo, XLogRecPtr *replay_from,
							 XLogRecPtr *min_redo);
extern void wal_control_write(XLogRecPtr replay_from, XLogRecPtr min_redo);

/* wal_recovery.c */
extern void wal_recover(bool in_startup);
extern void wal_checkpoint_done(XLogRecPtr redo);
extern void wal_connections_allowed(void);

#endif							/* ARTRIE_WAL_INTERNAL_H */
