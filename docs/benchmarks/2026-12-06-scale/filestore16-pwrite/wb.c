// Per-write cost of a 230-byte record appended to one of NF journals in turn (the idle pattern: each file written
// rarely, so each write is the first in its file's mtime tick), for three ways of laying out the file:
//  0 append: pwrite at the end, the file grows (what FileMessageStore does)
//  1 keep:   fallocate(FALLOC_FL_KEEP_SIZE) 1 MiB ahead, pwrite at the end: blocks allocated, i_size still grows
//  2 inplace: fallocate(0) 1 MiB (size set, unwritten extents), pwrite inside: i_size does not change
//  3 inplace-written: the region written with zeros and synced first, pwrite overwrites: no size, no extent change
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(int argc,char**argv){
  int mode=atoi(argv[1]); int nf=atoi(argv[2]); int rounds=atoi(argv[3]); const char*dir=argv[4];
  int *fd=malloc(nf*sizeof(int)); long *off=calloc(nf,sizeof(long));
  char rec[230]; memset(rec,'x',sizeof rec); char path[512];
  static char zeros[1<<18];
  for(int i=0;i<nf;i++){
    snprintf(path,sizeof path,"%s/j%d-%d",dir,mode,i);
    fd[i]=open(path,O_RDWR|O_CREAT|O_TRUNC,0644); if(fd[i]<0){perror("open");return 1;}
    if(mode==1) fallocate(fd[i],FALLOC_FL_KEEP_SIZE,0,1<<18);
    if(mode==2) fallocate(fd[i],0,0,1<<18);
    if(mode==3) { pwrite(fd[i],zeros,1<<18,0); }
  }
  sync();
  usleep(100000);
  double total=0; long n=0;
  for(int r=0;r<rounds;r++){
    for(int i=0;i<nf;i++){
      double t0=now();
      if(pwrite(fd[i],rec,sizeof rec,off[i])!=sizeof rec){perror("pwrite");return 1;}
      total+=now()-t0; n++; off[i]+=sizeof rec;
    }
    usleep(argc>5?atoi(argv[5]):20000);
  }
  printf("mode %d: %ld writes to %d files, %.2f us per pwrite\n",mode,n,nf,total/n/1000);
  for(int i=0;i<nf;i++){close(fd[i]); snprintf(path,sizeof path,"%s/j%d-%d",dir,mode,i); unlink(path);}
  return 0;
}
